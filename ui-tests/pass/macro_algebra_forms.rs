// Every algebra operation of the eval language in the macro form: `layout!` and
// `layout_type!` compute it at expansion with the shared core, and the static layout they
// emit equals the runtime result of the same expression.
use strideweave::eval::{eval, Value};
use strideweave::{layout, layout_type, Layout, StaticLayout};

fn runtime(expr: &str) -> Layout {
    match eval(expr) {
        Ok(Value::Layout(l)) => l,
        other => panic!("{expr}: {other:?}"),
    }
}

macro_rules! same {
    ($($e:tt)*) => {{
        let text = stringify!($($e)*).replace(' ', "");
        let l = layout!($($e)*);
        assert_eq!(l.layout(), runtime(&text), "{text}");
        assert_eq!(<layout_type!($($e)*)>::LAYOUT, runtime(&text), "{text}");
    }};
}

fn main() {
    same!(compose(20:2, (5,4):(4,1)));
    same!(compose((8,8):(8,1), (4,2)));
    same!(compose((8,8):(8,1), [2:1,4:2]));
    same!(complement((2,2):(1,6), 24));
    same!(complement((2,2):(1,6)));
    same!(divide((4,2,3):(2,1,8), 4:2));
    same!(logical_divide((4,2,3):(2,1,8), 4:2));
    same!(divide_tiler((8,8):(8,1), [2:1,4:1]));
    same!(zipped_divide((8,8):(8,1), [2:1,4:1]));
    same!(tiled_divide((8,8):(1,8), [4:1,2:1]));
    same!(logical_product((2,2):(1,2), 3:1));
    same!(blocked_product((4,8):(8,1), (2,3):(1,2)));
    same!(raked_product((2,2):(1,2), (3,4):(1,3)));
    same!(coalesce((2,(1,6)):(1,(6,2))));
    same!(filter((4,3):(0,4)));
    same!(right_inverse((4,2):(2,1)));
    same!(left_inverse((4,2):(2,1)));
    same!(get((2,(3,4)):(1,(10,100)), 1));
    same!(concat((1,2):(0,1), (3,4):(2,6)));
    same!(append((1,2):(0,1), (3,4):(2,6)));
    same!(permute((2,3,4):(1,2,6), 2, 0, 1));
    same!(broadcast_to((2,(1,3)):(1,(2,2)), (2,(4,3))));
    same!(layout((2,(3,4)), (1,(2,6))));
    // nested calls
    same!(compose(coalesce((2,(1,6)):(1,(6,2))), complement(4:3, 12)));
    // the expected values, independently of eval
    assert_eq!(layout!(zipped_divide((8,8):(8,1), [2:1,4:1])).to_string(), "((2,4),(4,2)):((8,1),(16,4))");
    assert_eq!(layout!(compose(20:2, (5,4):(4,1))).to_string(), "(5,4):(8,2)");
}
