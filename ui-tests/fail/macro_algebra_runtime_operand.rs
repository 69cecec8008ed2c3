// Algebra inside layout! takes literal operands; a {expression} is refused at its tokens.
fn main() {
    let n = 4;
    let _c = strideweave::layout!(compose(({n},2):(1,4), 2:1));
}
