// layout! without `:` between shape and stride.
fn main() {
    let _l = strideweave::layout!((2,3)(1,2));
}
