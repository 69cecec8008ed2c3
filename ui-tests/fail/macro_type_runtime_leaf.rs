// layout_type! needs literal leaves: a braced run-time value cannot be part of a type.
fn main() {
    let _t: Option<strideweave::layout_type!(({4},4):(1,4))> = None;
}
