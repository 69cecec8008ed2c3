// Algebra inside layout! is computed at expansion: an inadmissible composition is one
// error in `cargo check`, at the argument B, in the runtime error's words and values.
fn main() {
    let _c = strideweave::layout!(compose((4,6):(1,5), 6:1));
}
