// compose in layout!: the stride divisibility condition, named with its values at B.
fn main() {
    let _c = strideweave::layout!(compose((4,6):(1,5), 4:3));
}
