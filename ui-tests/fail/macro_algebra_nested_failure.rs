// A failing call nested in another: the one error is at the innermost failing call's
// offending argument.
fn main() {
    let _c = strideweave::layout!(compose(coalesce((4,6):(1,5)), complement((2,2):(1,1), 4)));
}
