// A swizzled layout in `layout!`/`layout_type!`: `Sw<B,M,S> o L` (also with algebra for
// L) becomes a zero-sized `StaticSwizzled` whose indices equal the runtime
// `ComposedLayout` of the same text, point by point.
use strideweave::{layout, layout_type, ComposedLayout, Coord};

type Smem = layout_type!(Sw<3,4,3> o (8,64):(64,1));

fn main() {
    let runtime: ComposedLayout = "Sw<3,4,3> o (8,64):(64,1)".parse().unwrap();
    let s = layout!(Sw<3,4,3> o (8,64):(64,1));
    assert_eq!(std::mem::size_of_val(&s), 0);
    assert_eq!(s.composed(), runtime);
    for i in 0..512 {
        assert_eq!(s.index_of(i).unwrap(), runtime.index(&Coord::linear(i)).unwrap());
    }
    assert_eq!(Smem::default().composed(), runtime);
    assert_eq!(Smem::SIZE, 512);
    // the layout under the swizzle may be computed by the macro too
    let t = layout!(Sw<2,0,3> o zipped_divide((8,8):(8,1), [2:1,4:1]));
    let rt: ComposedLayout = "Sw<2,0,3> o ((2,4),(4,2)):((8,1),(16,4))".parse().unwrap();
    assert_eq!(t.composed(), rt);
    // negative shifts read as in CuTe
    let n = layout!(Sw<2,0,-2> o 16:1);
    assert_eq!(n.composed().to_string(), "Sw<2,0,-2> o 16:1");
}
