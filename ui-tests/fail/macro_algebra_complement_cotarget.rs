// complement in layout! with a cotarget below the size: the error is at the cotarget.
fn main() {
    let _c = strideweave::layout!(complement(8:1, 4));
}
