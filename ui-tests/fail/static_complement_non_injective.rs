// The static complement of a non-injective layout fails the build.
use strideweave::{layout, StaticLayout};
fn main() {
    let _c = layout!((4,2):(1,1)).complement::<8>();
}
