// layout! with a zero extent.
fn main() {
    let _l = strideweave::layout!((2,0):(1,2));
}
