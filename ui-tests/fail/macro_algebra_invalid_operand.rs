// An operand that is not a valid layout: the error is at that operand, naming the rule.
fn main() {
    let _c = strideweave::layout!(compose((2,0):(1,1), 2:1));
}
