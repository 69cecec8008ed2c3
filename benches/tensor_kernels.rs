//! Tensor kernels against their obvious baselines (results: benches/RESULTS-tensor.md).
//!
//! * Cast F32 -> BF16, contiguous, vs `memcpy` of the input bytes (and `half`'s bulk
//!   conversion), 16M and 16K elements.
//! * CastTess static tile loop vs runtime tile loop vs contiguous Cast of the same data;
//!   the static loop is driven by a static tile layout (`layout_type!`), built-in
//!   (`Tile1x4x4x16`, picked by `Plan::run`) or written by the user (`run_static`).
//! * Argmax vs a plain scalar loop.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use half::slice::HalfFloatSliceExt;
use strideweave::layout_type;
use strideweave::tensor::{prepare, AlignedBytes, Op, TensorSpec, TileDispatch};

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap()
}

fn input_f32(n: usize) -> AlignedBytes {
    let mut b = AlignedBytes::zeroed(n * 4);
    for (i, c) in b.as_mut_slice().chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&((i % 1000) as f32 * 0.37 - 100.0).to_le_bytes());
    }
    b
}

fn cast(c: &mut Criterion) {
    for (label, n) in [("16M", 16usize << 20), ("16K", 16usize << 10)] {
        let mut g = c.benchmark_group(format!("cast_f32_bf16_{label}"));
        g.throughput(Throughput::Elements(n as u64));
        let input = input_f32(n);
        let mut copy = AlignedBytes::zeroed(n * 4);
        g.bench_function("memcpy_input_bytes", |b| {
            b.iter(|| {
                copy.as_mut_slice()
                    .copy_from_slice(black_box(input.as_slice()))
            })
        });
        let plan = prepare(
            Op::Cast,
            &[spec(&format!("f32[{n}]"))],
            &[spec(&format!("bf16[{n}]"))],
        )
        .unwrap();
        let mut out = AlignedBytes::zeroed(n * 2);
        g.bench_function("strideweave_cast", |b| {
            b.iter(|| {
                plan.run(&[black_box(input.as_slice())], &mut [out.as_mut_slice()])
                    .unwrap()
            })
        });
        let src: Vec<f32> = input
            .as_slice()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut dst = vec![half::bf16::ZERO; n];
        g.bench_function("half_convert_from_f32_slice", |b| {
            b.iter(|| dst.convert_from_f32_slice(black_box(&src)))
        });
        g.finish();
    }
}

fn cast_tess(c: &mut Criterion) {
    let dims = "[4,64,64,64]";
    let n = 4 * 64 * 64 * 64;
    let from = spec(&format!("f32{dims}"));
    let tiled = spec(&format!(
        "bf16{dims} mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)"
    ));
    let flat = spec(&format!("bf16{dims}"));
    let input = input_f32(n);
    let tess = prepare(Op::CastTess, &[from], &[tiled]).unwrap();
    let plain = prepare(Op::Cast, &[from], &[flat]).unwrap();
    let mut out = AlignedBytes::zeroed(tess.outputs()[0].bytes as usize);
    let mut g = c.benchmark_group("cast_tess_bf16_4x64x64x64");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("static_tile_1x4x4x16", |b| {
        b.iter(|| {
            tess.run_with(
                &[black_box(input.as_slice())],
                &mut [out.as_mut_slice()],
                TileDispatch::Auto,
            )
            .unwrap()
        })
    });
    g.bench_function("static_layout_type_run_static", |b| {
        b.iter(|| {
            tess.run_static::<layout_type!((16,4,4,1):(1,16,64,256))>(
                &[black_box(input.as_slice())],
                &mut [out.as_mut_slice()],
            )
            .unwrap()
        })
    });
    g.bench_function("runtime_tile", |b| {
        b.iter(|| {
            tess.run_with(
                &[black_box(input.as_slice())],
                &mut [out.as_mut_slice()],
                TileDispatch::Runtime,
            )
            .unwrap()
        })
    });
    let mut flat_out = AlignedBytes::zeroed(n * 2);
    g.bench_function("contiguous_cast", |b| {
        b.iter(|| {
            plain
                .run(
                    &[black_box(input.as_slice())],
                    &mut [flat_out.as_mut_slice()],
                )
                .unwrap()
        })
    });
    g.finish();

    // A tile shape that is not built in: only a user-written static layout monomorphizes it.
    let tiled = spec(&format!(
        "bf16{dims} mla-tiled(roles=.HWC, tile=(1,2,8,16), align=64)"
    ));
    let tess = prepare(Op::CastTess, &[from], &[tiled]).unwrap();
    let mut out = AlignedBytes::zeroed(tess.outputs()[0].bytes as usize);
    let mut g = c.benchmark_group("cast_tess_bf16_4x64x64x64_tile_1x2x8x16");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("static_layout_type_run_static", |b| {
        b.iter(|| {
            tess.run_static::<layout_type!((16,8,2,1):(1,16,128,256))>(
                &[black_box(input.as_slice())],
                &mut [out.as_mut_slice()],
            )
            .unwrap()
        })
    });
    g.bench_function("runtime_tile", |b| {
        b.iter(|| {
            tess.run_with(
                &[black_box(input.as_slice())],
                &mut [out.as_mut_slice()],
                TileDispatch::Runtime,
            )
            .unwrap()
        })
    });
    g.finish();
}

fn argmax(c: &mut Criterion) {
    let (rows, cols) = (1024usize, 4096usize);
    let input = input_f32(rows * cols);
    let plan = prepare(
        Op::Argmax { axis: 1 },
        &[spec(&format!("f32[{rows},{cols}]"))],
        &[spec(&format!("i64[{rows}]"))],
    )
    .unwrap();
    let mut out = AlignedBytes::zeroed(rows * 8);
    let vals: Vec<f32> = input
        .as_slice()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut g = c.benchmark_group("argmax_f32_1024x4096_axis1");
    g.throughput(Throughput::Elements((rows * cols) as u64));
    g.bench_function("strideweave_argmax", |b| {
        b.iter(|| {
            plan.run(&[black_box(input.as_slice())], &mut [out.as_mut_slice()])
                .unwrap()
        })
    });
    let mut idx = vec![0i64; rows];
    g.bench_function("scalar_loop", |b| {
        b.iter(|| {
            for (r, row) in black_box(&vals).chunks_exact(cols).enumerate() {
                let (mut bi, mut best) = (0usize, row[0]);
                for (k, &v) in row.iter().enumerate().skip(1) {
                    if v > best {
                        best = v;
                        bi = k;
                    }
                }
                idx[r] = bi as i64;
            }
            black_box(&idx);
        })
    });
    g.finish();
}

criterion_group!(benches, cast, cast_tess, argmax);
criterion_main!(benches);
