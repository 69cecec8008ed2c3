// An empty leaf between two commas: exactly one error, at the second comma.
fn main() {
    let _l = strideweave::layout!((2,,3):(1,2,6));
}
