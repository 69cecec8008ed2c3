// divide in layout! by a tile whose strides do not chain: the same rule the runtime names
// (not a false "not injective"), at the tile.
fn main() {
    let _d = strideweave::layout!(divide(12:1, (2,2):(1,3)));
}
