// layout! with a negative stride.
fn main() {
    let _l = strideweave::layout!((2,3):(1,-2));
}
