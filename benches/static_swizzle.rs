//! Cost of swizzled indexing: scattering a 512-element tile into the shared-memory atom
//! `Sw<3,3,3> o (8,64):(64,1)` (one `index_of(i)` per element), written as
//!
//! * `static_swizzled`: a kernel generic over `StaticSwizzled<W, L>` (swizzle and layout
//!   in the type);
//! * `hand_written`: the literal arithmetic, `o = (i % 8) * 64 + i / 8; o ^ ((o >> 3) & 0x38)`;
//! * `runtime_composed`: the runtime `ComposedLayout` (masks and strides read at run time).
//!
//! Run: `cargo bench --bench static_swizzle`. Results: `benches/RESULTS-swizzle.md`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use strideweave::static_layout::{StaticSwizzle, StaticSwizzleFn, StaticSwizzled};
use strideweave::{layout, ComposedLayout, StaticLayout};

const N: usize = 512;

#[inline(never)]
fn scatter_static<W: StaticSwizzleFn, L: StaticLayout>(
    l: StaticSwizzled<W, L>,
    src: &[f32; N],
    dst: &mut [f32; N],
) {
    for (i, s) in src.iter().enumerate() {
        dst[l.index_of(i as u64).unwrap() as usize] = *s;
    }
}

#[inline(never)]
fn scatter_hand_written(src: &[f32; N], dst: &mut [f32; N]) {
    for (i, s) in src.iter().enumerate() {
        let o = (i % 8) * 64 + i / 8;
        dst[o ^ ((o >> 3) & 0x38)] = *s;
    }
}

#[inline(never)]
fn scatter_runtime(l: &ComposedLayout, src: &[f32; N], dst: &mut [f32; N]) {
    for (i, s) in src.iter().enumerate() {
        dst[l.index_of(i as u64).unwrap() as usize] = *s;
    }
}

fn bench(c: &mut Criterion) {
    let st = StaticSwizzle::<3, 3, 3>.compose(layout!((8,64):(64,1)));
    let rt = st.composed();
    let src: [f32; N] = std::array::from_fn(|i| i as f32);
    let (mut a, mut b, mut d) = ([0.0; N], [0.0; N], [0.0; N]);
    scatter_static(st, &src, &mut a);
    scatter_hand_written(&src, &mut b);
    scatter_runtime(&rt, &src, &mut d);
    assert!(a == b && b == d, "the three kernels disagree");
    let mut g = c.benchmark_group("swizzle_scatter_512");
    g.bench_function("static_swizzled", |x| {
        x.iter(|| scatter_static(st, black_box(&src), black_box(&mut a)))
    });
    g.bench_function("hand_written", |x| {
        x.iter(|| scatter_hand_written(black_box(&src), black_box(&mut b)))
    });
    g.bench_function("runtime_composed", |x| {
        x.iter(|| scatter_runtime(black_box(&rt), black_box(&src), black_box(&mut d)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
