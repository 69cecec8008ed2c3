// layout! with an extra `)`: the Rust tokenizer rejects unbalanced delimiters before the
// macro runs, at the offending token.
fn main() {
    let _l = strideweave::layout!((2,3)):(1,2));
}
