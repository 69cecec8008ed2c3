// A static coordinate outside the layout's domain fails the build.
use strideweave::{coord, layout, StaticLayout};
fn main() {
    let _i = layout!((3,4):(2,10)).at(coord!((3,0)));
}
