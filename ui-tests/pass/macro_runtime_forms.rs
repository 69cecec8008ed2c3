// The run-time form: a braced leaf makes layout! evaluate to Result<Layout, LayoutError>;
// the values are checked when the code runs, as error values.
use strideweave::{layout, Layout, LayoutError};

fn main() {
    let n: usize = 6;
    let m: i32 = 4;
    let a: Result<Layout, LayoutError> = layout!(({n},{m}):(1,{n}));
    assert_eq!(a.unwrap().to_string(), "(6,4):(1,6)");
    let b = layout!(({n},(2,{m})));
    assert_eq!(b.unwrap().to_string(), "(6,(2,4)):(1,(6,12))");
    let zero = 0u8;
    assert!(layout!(({zero},4)).is_err());
    assert!(layout!((3,4):(1,{-m})).is_err());
    assert!(layout!(({u64::MAX},{u64::MAX})).is_err());
    let calls = std::cell::Cell::new(0);
    let next = || {
        calls.set(calls.get() + 1);
        calls.get()
    };
    let c = layout!(({next()},{next()}):({next()},{next()})).unwrap();
    assert_eq!(c.to_string(), "(1,2):(3,4)");
}
