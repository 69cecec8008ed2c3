// zipped_divide in layout! with more tiles than the layout has modes: at the tiler.
fn main() {
    let _z = strideweave::layout!(zipped_divide((4,4):(1,4), [2:1,2:1,2:1]));
}
