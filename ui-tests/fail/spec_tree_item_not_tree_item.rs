// Core spec, "Public tree markers describe layout structure": a Tree item that is neither
// an integer, a leaf marker nor a Tree SHALL be rejected; in Rust it does not compile.
use strideweave::Tree;
fn main() {
    let _t = Tree::new(["leaf"]);
}
