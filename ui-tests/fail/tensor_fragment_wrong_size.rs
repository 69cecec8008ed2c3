// A fragment's storage length must be its static layout's cosize: 15 is not 16.
use strideweave::layout_type;
use strideweave::tensor::Fragment;

type Acc = layout_type!((4,4):(1,4));

fn main() {
    let acc: Fragment<f32, Acc, 15> = Fragment::filled(0.0);
    let _ = acc;
}
