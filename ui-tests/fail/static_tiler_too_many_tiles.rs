// A static tiler with more tiles than the layout has modes: the build error names both
// counts and the layouts.
use strideweave::{layout, StaticLayout};
fn main() {
    let _z = layout!((4,4):(1,4)).zipped_divide((layout!(2:1), layout!(2:1), layout!(2:1)));
}
