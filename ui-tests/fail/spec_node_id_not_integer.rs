// Core spec, "Public tree markers describe layout structure": Node.id(n) with a
// non-integer n SHALL fail with TypeError; in Rust it does not compile.
use strideweave::Node;
fn main() {
    let _m = Node::id(1.5);
}
