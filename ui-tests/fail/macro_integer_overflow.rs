// layout! integer overflow: a literal beyond u64, and a size beyond u64.
fn main() {
    let _a = strideweave::layout!((18446744073709551616,2):(1,2));
    let _b = strideweave::layout!((4294967296,4294967296):(1,4294967296));
}
