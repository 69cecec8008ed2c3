// broadcast_to in layout! changing an extent other than 1.
fn main() {
    let _b = strideweave::layout!(broadcast_to((2,3):(1,2), (4,3)));
}
