// layout! with empty parentheses: a tuple needs at least one mode.
fn main() {
    let _l = strideweave::layout!((2,()):(1,2));
}
