// The static divide (generic code, post-monomorphization) names the same rule as the
// runtime divide: the tile's strides do not chain. Fails in `cargo build`.
use strideweave::{layout, StaticLayout};
fn main() {
    let _d = layout!(12:1).divide(layout!((2,2):(1,3)));
}
