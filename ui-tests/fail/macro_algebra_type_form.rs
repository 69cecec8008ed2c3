// layout_type! evaluates algebra too, with the same one error at the argument.
fn main() {
    let _x: Option<strideweave::layout_type!(compose((4,6):(1,5), 6:1))> = None;
}
