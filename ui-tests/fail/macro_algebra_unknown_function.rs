// An unknown function name in layout!.
fn main() {
    let _f = strideweave::layout!(frobnicate(2:1));
}
