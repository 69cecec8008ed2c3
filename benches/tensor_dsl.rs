//! The tensor DSL against hand-written code (issue: tensors as a kernel language, item 6).
//!
//! * `tile_copy`: one 4x4x16 f32 tile out of an NHWC image (C = 64, W = 16) into a
//!   compact tile, through static tensors (`copy`), vs a hand-written unrolled loop.
//! * `mla_pack`: the DSL MLA pack (`examples/mla_pack.rs`) vs the built-in CastTess.
//! * `transpose`: the DSL tiled transpose (`examples/transpose.rs`) vs a hand-written
//!   blocked transpose.
//! * `gemm`: the DSL fragment GEMM (`examples/gemm.rs`) vs the naive triple loop and
//!   the `matrixmultiply` crate's `sgemm`.
//!
//! Run: `cargo bench --bench tensor_dsl -- --warm-up-time 1 --measurement-time 3`.
//! Results: `benches/RESULTS-tensor-dsl.md`.

#[path = "../examples/gemm.rs"]
#[allow(dead_code)]
mod gemm;
#[path = "../examples/mla_pack.rs"]
#[allow(dead_code)]
mod mla_pack;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use strideweave::layout;
use strideweave::tensor::{copy, Tensor};

const IMAGE: usize = 16 * 16 * 64;

/// The DSL tile copy: both layouts static, the plan (16 runs of 16) made by the compiler.
#[inline(never)]
pub fn tile_copy_dsl(src: &[f32; IMAGE], dst: &mut [f32; 256]) {
    let s = Tensor::new(&src[..], layout!((16,4,4):(1,64,1024))).unwrap();
    let mut d = Tensor::new(&mut dst[..], layout!((16,4,4):(1,16,64))).unwrap();
    copy(&s, &mut d).unwrap();
}

/// What one writes by hand for this tile.
#[inline(never)]
pub fn tile_copy_hand(src: &[f32; IMAGE], dst: &mut [f32; 256]) {
    for h in 0..4 {
        for w in 0..4 {
            let s = h * 1024 + w * 64;
            let d = (h * 4 + w) * 16;
            dst[d..d + 16].copy_from_slice(&src[s..s + 16]);
        }
    }
}

fn tile_copy(c: &mut Criterion) {
    let src: Box<[f32; IMAGE]> = Box::new(std::array::from_fn(|i| i as f32));
    let mut a = [0.0f32; 256];
    let mut b = [0.0f32; 256];
    tile_copy_dsl(&src, &mut a);
    tile_copy_hand(&src, &mut b);
    assert_eq!(a, b);
    let mut g = c.benchmark_group("tile_copy_4x4x16");
    g.bench_function("dsl_static_tensors", |bch| {
        bch.iter(|| tile_copy_dsl(black_box(&src), black_box(&mut a)))
    });
    g.bench_function("hand_unrolled", |bch| {
        bch.iter(|| tile_copy_hand(black_box(&src), black_box(&mut b)))
    });
    g.finish();
}

fn mla(c: &mut Criterion) {
    use strideweave::tensor::{prepare, Op, TensorSpec};
    for dims in [[1u64, 56, 56, 64], [1, 57, 55, 40]] {
        let len: u64 = dims.iter().product();
        let src: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin()).collect();
        let bytes = mla_pack::packed_len(dims[0], dims[1], dims[2], dims[3]) as usize;
        let (mut a, mut b) = (vec![0u8; bytes], vec![0u8; bytes]);
        let [n, h, w, ch] = dims;
        let from: TensorSpec = format!("f32[{n},{h},{w},{ch}]").parse().unwrap();
        let to: TensorSpec =
            format!("bf16[{n},{h},{w},{ch}] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)")
                .parse()
                .unwrap();
        let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
        let in_bytes: Vec<u8> = src.iter().flat_map(|x| x.to_le_bytes()).collect();
        mla_pack::pack(&src, dims, &mut a).unwrap();
        plan.run(&[&in_bytes], &mut [&mut b]).unwrap();
        assert_eq!(a, b);
        let mut g = c.benchmark_group(format!("mla_pack_{n}x{h}x{w}x{ch}"));
        // both prepared once per shape: the DSL's tile walk and plan, the built-in's Plan
        let dsl = mla_pack::MlaPack::new(dims).unwrap();
        g.bench_function("dsl_example", |bch| {
            bch.iter(|| dsl.run(black_box(&src), black_box(&mut a)).unwrap())
        });
        g.bench_function("builtin_cast_tess", |bch| {
            bch.iter(|| {
                plan.run(&[black_box(&in_bytes)], &mut [black_box(&mut b)])
                    .unwrap()
            })
        });
        g.finish();
    }
}

/// The DSL transpose, kept out of line so that profilers (callgrind) can count it.
#[inline(never)]
fn transpose_dsl(src: &[f32], m: usize, n: usize, dst: &mut [f32]) {
    transpose::transpose(src, m as u64, n as u64, dst).unwrap()
}

/// The hand-written blocked transpose, out of line likewise.
#[inline(never)]
fn transpose_hand(src: &[f32], m: usize, n: usize, dst: &mut [f32]) {
    transpose::transpose_blocked(src, m, n, dst)
}

fn transposes(c: &mut Criterion) {
    for (m, n) in [(512usize, 512usize), (509, 515)] {
        let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
        let (mut a, mut b) = (vec![0.0; m * n], vec![0.0; m * n]);
        let mut g = c.benchmark_group(format!("transpose_{m}x{n}"));
        g.bench_function("dsl_example", |bch| {
            bch.iter(|| transpose_dsl(black_box(&src), m, n, black_box(&mut a)))
        });
        g.bench_function("hand_blocked", |bch| {
            bch.iter(|| transpose_hand(black_box(&src), m, n, black_box(&mut b)))
        });
        g.finish();
        assert_eq!(a, b);
    }
}

fn gemms(c: &mut Criterion) {
    let (m, n, k) = (128usize, 128usize, 128usize);
    let a: Vec<f32> = (0..m * k).map(|x| ((x * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..k * n).map(|x| ((x * 5) % 13) as f32 - 6.0).collect();
    let (mut c1, mut c2, mut c3) = (vec![0.0; m * n], vec![0.0; m * n], vec![0.0; m * n]);
    let mut g = c.benchmark_group("gemm_128x128x128");
    g.bench_function("dsl_example", |bch| {
        bch.iter(|| {
            gemm::gemm(
                black_box(&a),
                black_box(&b),
                black_box(&mut c1),
                m as u64,
                n as u64,
                k as u64,
            )
            .unwrap()
        })
    });
    g.bench_function("naive_triple_loop", |bch| {
        bch.iter(|| gemm::gemm_naive(black_box(&a), black_box(&b), black_box(&mut c2), m, n, k))
    });
    g.bench_function("matrixmultiply_sgemm", |bch| {
        bch.iter(|| unsafe {
            matrixmultiply::sgemm(
                m,
                k,
                n,
                1.0,
                black_box(a.as_ptr()),
                k as isize,
                1,
                black_box(b.as_ptr()),
                n as isize,
                1,
                0.0,
                black_box(c3.as_mut_ptr()),
                n as isize,
                1,
            )
        })
    });
    g.finish();
    assert_eq!(c1, c2);
    assert_eq!(c1, c3);
}

criterion_group!(benches, tile_copy, mla, transposes, gemms);
criterion_main!(benches);
