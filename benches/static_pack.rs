//! Zero-cost check for static layouts (issue 3, item 5): the same tile traversal, packing
//! a 64x64 f32 column-major block into 64 contiguous 8x8 tiles, written as
//!
//! * `static_flat`: a kernel generic over `L: StaticLayout`, one `index_of(i)` per element;
//! * `static_rows`: the same generic kernel, walking leaf 0 as the inner loop (one
//!   `index_of` per run of `EXTENTS[0]` elements);
//! * `hand_written`: four nested loops with literal arithmetic (the `static_rows` order);
//! * `hand_written_flat`: one loop, literal mixed-radix arithmetic per element (the
//!   `static_flat` traversal);
//! * `runtime_flat` / `runtime_rows`: the same two kernels driven by a runtime `Layout`.
//!
//! The layout is `zipped_divide((64,64):(1,64), [8:1, 8:1])` =
//! `((8,8),(8,8)):((1,64),(8,512))`, computed by the compiler for the static kernels and
//! by the same algebra at run time for the runtime ones.
//!
//! Run: `cargo bench --bench static_pack`. Results: `benches/RESULTS-static.md`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use strideweave::static_layout::ZippedDivided;
use strideweave::{layout_type, Layout, StaticLayout};

const N: usize = 64 * 64;

type Packing = ZippedDivided<layout_type!((64,64):(1,64)), (layout_type!(8:1), layout_type!(8:1))>;

/// `dst[i] = src[L(i)]` for every `i`: one integer-key index per element.
#[inline(never)]
fn pack_static_flat<L: StaticLayout>(src: &[f32; N], dst: &mut [f32; N]) {
    let l = L::default();
    for (i, d) in dst[..L::SIZE as usize].iter_mut().enumerate() {
        *d = src[l.index_of(i as u64).unwrap() as usize];
    }
}

/// The same map, leaf 0 as the inner loop: one `index_of` per run of `EXTENTS[0]`.
#[inline(never)]
fn pack_static_rows<L: StaticLayout>(src: &[f32; N], dst: &mut [f32; N]) {
    let l = L::default();
    let run = L::EXTENTS[0] as usize;
    let step = L::STRIDES[0] as usize;
    for (k, out) in dst[..L::SIZE as usize].chunks_exact_mut(run).enumerate() {
        let base = l.index_of((k * run) as u64).unwrap() as usize;
        for (r, d) in out.iter_mut().enumerate() {
            *d = src[base + r * step];
        }
    }
}

/// What one writes by hand for this one tile shape.
#[inline(never)]
fn pack_hand_written(src: &[f32; N], dst: &mut [f32; N]) {
    for tc in 0..8 {
        for tr in 0..8 {
            for c in 0..8 {
                for r in 0..8 {
                    dst[((tc * 8 + tr) * 8 + c) * 8 + r] = src[(tr * 8 + r) + (tc * 8 + c) * 64];
                }
            }
        }
    }
}

/// The flat traversal by hand: one literal mixed-radix decomposition per element.
#[inline(never)]
fn pack_hand_written_flat(src: &[f32; N], dst: &mut [f32; N]) {
    for (i, d) in dst.iter_mut().enumerate() {
        *d = src[(i % 8) + (i / 8 % 8) * 64 + (i / 64 % 8) * 8 + (i / 512) * 512];
    }
}

#[inline(never)]
fn pack_runtime_flat(l: &Layout, src: &[f32; N], dst: &mut [f32; N]) {
    for (i, d) in dst[..l.size() as usize].iter_mut().enumerate() {
        *d = src[l.index_of(i as u64).unwrap() as usize];
    }
}

#[inline(never)]
fn pack_runtime_rows(l: &Layout, src: &[f32; N], dst: &mut [f32; N]) {
    let run = l.leaf_extent(0) as usize;
    let step = l.leaf_stride(0) as usize;
    for (k, out) in dst[..l.size() as usize].chunks_exact_mut(run).enumerate() {
        let base = l.index_of((k * run) as u64).unwrap() as usize;
        for (r, d) in out.iter_mut().enumerate() {
            *d = src[base + r * step];
        }
    }
}

fn bench(c: &mut Criterion) {
    let src: Box<[f32; N]> = Box::new(std::array::from_fn(|x| x as f32));
    let runtime: Layout = {
        let a: Layout = "(64,64):(1,64)".parse().unwrap();
        let t = ["8:1".parse().unwrap(), "8:1".parse().unwrap()];
        a.zipped_divide(&t).unwrap()
    };
    assert_eq!(runtime, Packing::LAYOUT);
    // all five kernels agree before anything is timed
    let mut expect = Box::new([0.0f32; N]);
    pack_hand_written(&src, &mut expect);
    for f in [
        pack_static_flat::<Packing> as fn(&[f32; N], &mut [f32; N]),
        pack_static_rows::<Packing>,
        pack_hand_written_flat,
    ] {
        let mut out = Box::new([0.0f32; N]);
        f(&src, &mut out);
        assert_eq!(out, expect);
    }
    for f in [pack_runtime_flat, pack_runtime_rows] {
        let mut out = Box::new([0.0f32; N]);
        f(&runtime, &src, &mut out);
        assert_eq!(out, expect);
    }

    let mut g = c.benchmark_group("pack_64x64_f32_through_8x8_tiles");
    let mut dst = Box::new([0.0f32; N]);
    g.bench_function("hand_written", |b| {
        b.iter(|| pack_hand_written(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("static_rows", |b| {
        b.iter(|| pack_static_rows::<Packing>(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("hand_written_flat", |b| {
        b.iter(|| pack_hand_written_flat(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("static_flat", |b| {
        b.iter(|| pack_static_flat::<Packing>(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("runtime_rows", |b| {
        b.iter(|| pack_runtime_rows(black_box(&runtime), black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("runtime_flat", |b| {
        b.iter(|| pack_runtime_flat(black_box(&runtime), black_box(&src), black_box(&mut dst)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
