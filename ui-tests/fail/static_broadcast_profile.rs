// Broadcasting a static layout to a shape of another profile: a type error.
use strideweave::{layout, shape};
fn main() {
    let _b = layout!((2,(1,3)):(1,(2,2))).broadcast_to(shape!((2,1,3)));
}
