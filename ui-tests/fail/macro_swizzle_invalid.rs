// A swizzle whose shift is smaller than its bit count (the two bit ranges overlap).
fn main() {
    let _s = strideweave::layout!(Sw<3,4,2> o (8,64):(64,1));
}
