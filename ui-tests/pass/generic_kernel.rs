// A generic kernel instantiated for a tile through the macro's type-position form.
use strideweave::{layout_type, StaticLayout};

fn pack<T: StaticLayout>(src: &[f32], dst: &mut [f32]) {
    for (i, d) in dst.iter_mut().enumerate().take(T::SIZE as usize) {
        *d = src[T::default().index_of(i as u64).unwrap() as usize];
    }
}

fn main() {
    let src: Vec<f32> = (0..64).map(|x| x as f32).collect();
    let mut dst = [0.0f32; 16];
    pack::<layout_type!((4,4):(1,8))>(&src, &mut dst);
    assert_eq!(dst[..5], [0.0, 1.0, 2.0, 3.0, 8.0]);
}
