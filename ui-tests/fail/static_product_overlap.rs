// The static blocked product (generic code, post-monomorphization) makes the runtime's
// overlap check: its copies of A would land on A, so it fails `cargo build` with the
// runtime's words instead of returning a non-injective layout.
use strideweave::{layout, StaticLayout};
fn main() {
    let _p = layout!((2,2):(2,6)).blocked_product(layout!(2:2));
}
