// Core spec, "Layout construction requires structural congruence": if shape is not a
// Shape or stride is not a Stride, construction SHALL fail; in Rust it does not compile.
use strideweave::{Layout, Shape, Stride};
fn main() {
    let stride = Stride::new((1, 2)).unwrap();
    let shape = Shape::new((2, 3)).unwrap();
    let _l = Layout::new(stride, shape);
}
