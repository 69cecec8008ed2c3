// run_static / StaticTile with a tile layout that is not the compact tile order: the build
// error names the layout, the offending mode and stride, and the right layout.
use strideweave::layout_type;
use strideweave::tensor::StaticTile;
fn main() {
    let _t = StaticTile::<layout_type!((16,4,4,1):(4,1,64,256))>::new();
}
