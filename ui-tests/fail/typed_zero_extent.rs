// A hand-written static layout type with a zero extent: the layout's const evaluation
// fails the build (a post-monomorphization error, seen by `cargo build`).
use strideweave::{Static, C};
fn main() {
    let _l = Static::<(C<2>, C<0>), (C<1>, C<2>)>::new();
}
