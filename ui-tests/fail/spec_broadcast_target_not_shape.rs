// Core spec, "Layout broadcasting preserves the shape profile": a target that is not a
// Shape SHALL fail with TypeError; in Rust it does not compile.
use strideweave::{Layout, Stride};
fn main() {
    let l: Layout = "(2,3):(1,2)".parse().unwrap();
    let _b = l.broadcast_to(&Stride::new((2, 3)).unwrap());
}
