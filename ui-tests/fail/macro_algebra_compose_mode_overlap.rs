// compose in layout!: a non-injective B whose modes carry between A's modes.
fn main() {
    let _c = strideweave::layout!(compose((2,2):(1,4), (2,2):(1,1)));
}
