// layout! with leaves that are not integers: an identifier and a float, both reported at
// once, each at its token.
fn main() {
    let _l = strideweave::layout!((2,x):(1,2.5));
}
