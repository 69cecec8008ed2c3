// left_inverse in layout! of a non-injective layout.
fn main() {
    let _l = strideweave::layout!(left_inverse((2,2):(1,1)));
}
