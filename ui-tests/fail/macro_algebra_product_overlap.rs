// blocked_product in layout! whose copies of A would land on A.
fn main() {
    let _p = strideweave::layout!(blocked_product((2,2):(2,6), 2:2));
}
