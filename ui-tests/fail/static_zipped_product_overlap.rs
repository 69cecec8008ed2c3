// The static product by a tiler checks each mode as the runtime does: mode 0's copies of
// (2,2):(2,6) would land on it, so the build fails naming the call and the rule.
use strideweave::{layout, StaticLayout};
fn main() {
    let _p = layout!(((2,2),3):((2,6),100)).zipped_product((layout!(2:2),));
}
