// layout! with incongruent shape and stride: the error points at the first mismatching
// sub-tree and shows both.
fn main() {
    let _l = strideweave::layout!((2,(3,4)):(1,10));
}
