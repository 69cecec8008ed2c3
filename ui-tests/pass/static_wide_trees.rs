// Static trees as wide as the runtime capacity (32 leaves), and static tilers as long as
// the layout's rank: no false "not congruent" at 13 modes, no 4-tile limit.
use strideweave::{layout, layout_type, Layout, StaticLayout};

fn main() {
    let l13 = layout!((1,2,1,2,1,2,1,2,1,2,1,2,3):(0,1,0,2,0,4,0,8,0,16,0,32,64));
    assert_eq!(l13.layout().rank(), 13);
    assert_eq!(l13.layout(), "(1,2,1,2,1,2,1,2,1,2,1,2,3):(0,1,0,2,0,4,0,8,0,16,0,32,64)".parse::<Layout>().unwrap());

    type L32 = layout_type!((2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1));
    assert_eq!(L32::LEAVES, 32);
    assert_eq!(L32::SIZE, 1 << 16);

    let a = layout!((2,2,2,2,2,2):(1,2,4,8,16,32));
    let t = (layout!(1:1), layout!(2:1), layout!(1:1), layout!(2:1), layout!(1:1), layout!(2:1));
    let z = a.zipped_divide(t);
    let tiles: Vec<Layout> = ["1:1", "2:1", "1:1", "2:1", "1:1", "2:1"].iter().map(|s| s.parse().unwrap()).collect();
    assert_eq!(z.layout(), a.layout().zipped_divide(&tiles).unwrap());
}
