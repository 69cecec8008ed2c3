// Core spec, "Uniform preimage extent is an algebraic layout query": a target that is not
// a Shape SHALL fail with TypeError; in Rust it does not compile.
use strideweave::Layout;
fn main() {
    let l: Layout = "(4,3):(0,1)".parse().unwrap();
    let _k = l.uniform_preimage_extent(&l);
}
