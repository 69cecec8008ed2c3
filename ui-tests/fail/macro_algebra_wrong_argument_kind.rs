// A value of the wrong kind as an algebra operand: the type error names the argument and
// points at it.
fn main() {
    let _c = strideweave::layout!(compose((4,6):(1,5), true));
}
