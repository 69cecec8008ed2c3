// Core spec, "Public tree markers describe layout structure": Node.id(n) with negative n
// SHALL fail. `Node::id` takes `usize`, so a negative literal does not compile.
use strideweave::Node;
fn main() {
    let _m = Node::id(-1);
}
