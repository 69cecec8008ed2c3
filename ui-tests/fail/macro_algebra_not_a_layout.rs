// layout! needs an expression whose value is a layout.
fn main() {
    let _s = strideweave::layout!(size((2,2):(1,2)));
}
