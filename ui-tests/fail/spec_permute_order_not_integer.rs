// Core spec, "Permutation reorders complete top-level modes": an order entry that is not
// an integer SHALL fail with TypeError; in Rust it does not compile.
use strideweave::Layout;
fn main() {
    let l: Layout = "(2,3):(1,2)".parse().unwrap();
    let _p = l.permute(&[1.0, 0.0]);
}
