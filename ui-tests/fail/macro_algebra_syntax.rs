// A syntax error inside an algebra expression: the core parser's message, at the token.
fn main() {
    let _c = strideweave::layout!(compose((2,2):(1,2) 2:1));
}
