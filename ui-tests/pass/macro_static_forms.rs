// Every valid static form of layout!/layout_type!/shape!/stride!/coord! compiles and
// builds (a pass case also makes trybuild run `cargo build`, so post-monomorphization
// errors in the fail cases are seen).
use strideweave::{coord, layout, layout_type, shape, stride, Layout, Static, StaticLayout, C};

const TILE: layout_type!((8,8):(1,8)) = layout!((8,8):(1,8));
const TILE_SIZE: u64 = <layout_type!((8,8):(1,8))>::SIZE;

fn main() {
    let nested = layout!((2,(3,4)):(1,(10,100)));
    let rank1 = layout!(20:2);
    let rank1_parens = layout!((20):(2));
    let shape_only = layout!((4,8));
    let shape_only_nested = layout!((4,(2,3)));
    let spaced = layout!( ( 2 , 3 ) : ( 1 , 2 ) );
    let suffixed = layout!((2u64,3usize):(1,2));
    let single_nested = layout!(((3,4)):((1,3)));
    assert_eq!(nested.to_string(), "(2,(3,4)):(1,(10,100))");
    assert_eq!(rank1, rank1_parens);
    assert_eq!(shape_only.to_string(), "(4,8):(1,4)");
    assert_eq!(shape_only_nested.to_string(), "(4,(2,3)):(1,(4,8))");
    assert_eq!(spaced, suffixed);
    assert_eq!(single_nested.to_string(), "((3,4)):((1,3))");
    assert_eq!(TILE_SIZE, 64);
    assert_eq!(TILE.at(coord!((7,7))), 63);
    let hand: Static<(C<2>, (C<3>, C<4>)), (C<1>, (C<10>, C<100>))> = nested;
    assert_eq!(Layout::from(hand), "(2,(3,4)):(1,(10,100))".parse::<Layout>().unwrap());
    let built = Static::from_trees(shape!((2,(3,4))), stride!((1,(10,100))));
    assert_eq!(built, nested);
    assert_eq!(nested.at(coord!((1,(2,3)))), 321);
    assert_eq!(nested.at(coord!(23)), 321);
    let b = layout!((2,(1,3)):(1,(2,2))).broadcast_to(shape!((2,(4,3))));
    assert_eq!(b.to_string(), "(2,(4,3)):(1,(0,2))");
    let c = rank1.compose(layout!((5,4):(4,1)));
    assert_eq!(c.to_string(), "(5,4):(8,2)");
    assert_eq!(layout!((2,2):(1,6)).complement::<24>().to_string(), "(3,2):(2,12)");
    let z = layout!((64,64):(1,64)).zipped_divide((layout!(8:1), layout!(8:1)));
    assert_eq!(z.to_string(), "((8,8),(8,8)):((1,64),(8,512))");
}
