// complement in layout! of a layout with colliding indices: one error at the layout.
fn main() {
    let _c = strideweave::layout!(complement((4,2):(1,1), 8));
}
