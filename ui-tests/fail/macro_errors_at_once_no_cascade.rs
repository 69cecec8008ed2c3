// Every error of one invocation is reported at once, and the placeholder keeps the code
// after it well typed: exactly two errors, nothing about `index_of` or `SIZE`.
use strideweave::StaticLayout;
fn main() {
    let l = strideweave::layout!((2,0):(1,-2));
    let _ = l.index_of(1);
    let _ = <strideweave::layout_type!((2,x))>::SIZE;
}
