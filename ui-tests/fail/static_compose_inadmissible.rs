// An inadmissible static composition (CuTe's stride divisibility condition) fails the
// build with a message naming the rule.
use strideweave::{layout, StaticLayout};
fn main() {
    let _c = layout!((4,6):(1,5)).compose(layout!(6:1));
}
