//! The kernel matrix of `benches/RESULTS-tensor.md`: shapes x placements x all nine dtype
//! pairs, each CastTess / CastUntess next to the contiguous Cast of the same tensor, a
//! memcpy of its input and a memcpy of the tiled side's bytes (the padded output of
//! CastTess, the padded input of CastUntess), all single-threaded
//! (`RunOptions::threads(1)`) so ratios compare kernels; then the thread-count gain on
//! tensors above 16 MiB (with a 1- and 2-thread memcpy as the machine's ceiling),
//! Argmax against scalar loops, and narrow channel tiles (1, 2, 4 and 8 slots) against
//! the contiguous Cast (`-- narrow` runs those alone).
//!
//! Run: `cargo bench --bench tensor_matrix -- --warm-up-time 0.5 --measurement-time 1`
//! then `python3 benches/matrix_table.py` prints the ratio tables from criterion's output.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use strideweave::tensor::{prepare, DType, Op, Plan, RunOptions, TensorSpec};

const SHAPES: [&str; 5] = [
    "1,56,56,64",
    "1,57,55,40",
    "1,224,224,3",
    "8,28,28,257",
    "1,7,7,2048",
];
const PLACEMENTS: [(&str, &str); 3] = [
    (
        "tiled_1x4x4x16",
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
    ),
    (
        "tiled_1x8x8x32",
        "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
    ),
    ("cblocked_4x4", "mla-cblocked(tile=(4,4), align=64)"),
];
const PAIRS: [(&str, &str); 9] = [
    ("f32", "bf16"),
    ("f32", "f16"),
    ("bf16", "f32"),
    ("f16", "f32"),
    ("bf16", "f16"),
    ("f16", "bf16"),
    ("f32", "f32"),
    ("f16", "f16"),
    ("bf16", "bf16"),
];

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// `len` zero bytes starting at a 4 KiB boundary, so every run places each buffer the
/// same way modulo the page: with the allocator's placement, the contiguous Casts (the
/// ratios' denominators) moved by up to 1.25x between runs of unchanged code, and the
/// count of cells within 1.5x by about ten.
struct Paged {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Paged {
    fn zeroed(len: usize) -> Paged {
        const PAGE: usize = 4096;
        let buf = vec![0u8; len + PAGE];
        let start = (PAGE - buf.as_ptr() as usize % PAGE) % PAGE;
        Paged { buf, start, len }
    }

    fn as_slice(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }

    fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

/// Input bytes for `s`: deterministic values of its dtype, finite and varied.
fn input(s: &TensorSpec, bytes: usize) -> Paged {
    let mut b = Paged::zeroed(bytes);
    let w = s.dtype.width() as usize;
    for (i, c) in b.as_mut_slice().chunks_exact_mut(w).enumerate() {
        let x = (i % 1000) as f32 * 0.37 - 100.0;
        match s.dtype {
            DType::F32 => c.copy_from_slice(&x.to_le_bytes()),
            DType::F16 => c.copy_from_slice(&half::f16::from_f32(x).to_le_bytes()),
            _ => c.copy_from_slice(&half::bf16::from_f32(x).to_le_bytes()),
        }
    }
    b
}

fn bench_plan(c: &mut Criterion, group: &str, name: &str, plan: &Plan, threads: usize) {
    let inp = input(&plan.inputs()[0].spec, plan.inputs()[0].bytes as usize);
    let mut out = Paged::zeroed(plan.outputs()[0].bytes as usize);
    let opts = RunOptions::new().threads(threads);
    c.benchmark_group(group).bench_function(name, |b| {
        b.iter(|| {
            plan.run_with_options(
                &[black_box(inp.as_slice())],
                &mut [out.as_mut_slice()],
                opts,
            )
            .unwrap()
        })
    });
}

/// A memcpy of `n` bytes (the reference for the padded, tiled side of a conversion).
fn bench_memcpy(c: &mut Criterion, group: &str, name: &str, n: usize) {
    let src = Paged::zeroed(n);
    let mut copy = Paged::zeroed(n);
    c.benchmark_group(group).bench_function(name, |bch| {
        bch.iter(|| {
            copy.as_mut_slice()
                .copy_from_slice(black_box(src.as_slice()))
        })
    });
}

fn matrix(c: &mut Criterion) {
    for dims in SHAPES {
        for (a, b) in PAIRS {
            let group = format!("matrix/{}/{a}_{b}", dims.replace(',', "x"));
            let from = spec(&format!("{a}[{dims}]"));
            let to = spec(&format!("{b}[{dims}]"));
            let cast = prepare(Op::Cast, &[from], &[to]).unwrap();
            bench_plan(c, &group, "contiguous_cast", &cast, 1);
            bench_memcpy(c, &group, "memcpy_input", cast.inputs()[0].bytes as usize);
            for (pname, placement) in PLACEMENTS {
                let tess = prepare(
                    Op::CastTess,
                    &[from],
                    &[spec(&format!("{b}[{dims}] {placement}"))],
                )
                .unwrap();
                bench_plan(c, &group, &format!("tess_{pname}"), &tess, 1);
                let out = tess.outputs()[0].bytes as usize;
                bench_memcpy(c, &group, &format!("memcpy_tess_out_{pname}"), out);
                let untess = prepare(
                    Op::CastUntess,
                    &[spec(&format!("{a}[{dims}] {placement}"))],
                    &[to],
                )
                .unwrap();
                bench_plan(c, &group, &format!("untess_{pname}"), &untess, 1);
                let inp = untess.inputs()[0].bytes as usize;
                bench_memcpy(c, &group, &format!("memcpy_untess_in_{pname}"), inp);
            }
        }
    }
}

/// Narrow channel tiles outside the matrix: planar (one-slot) tiles and tiles of 2, 4
/// and 8 slots, CastTess and CastUntess next to the contiguous Cast of the same tensor.
const NARROW_SHAPES: [&str; 2] = ["1,56,56,64", "1,57,55,40"];
const NARROW_PLACEMENTS: [(&str, &str); 5] = [
    ("1x4x4x1", "mla-tiled(roles=.HWC, tile=(1,4,4,1), align=64)"),
    (
        "1x8x16x1",
        "mla-tiled(roles=.HWC, tile=(1,8,16,1), align=64)",
    ),
    ("1x4x4x2", "mla-tiled(roles=.HWC, tile=(1,4,4,2), align=64)"),
    ("1x4x4x4", "mla-tiled(roles=.HWC, tile=(1,4,4,4), align=64)"),
    ("1x4x4x8", "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)"),
];
const NARROW_PAIRS: [(&str, &str); 3] = [("f32", "bf16"), ("bf16", "f32"), ("f16", "f16")];

fn narrow(c: &mut Criterion) {
    for dims in NARROW_SHAPES {
        for (a, b) in NARROW_PAIRS {
            let group = format!("narrow/{}/{a}_{b}", dims.replace(',', "x"));
            let from = spec(&format!("{a}[{dims}]"));
            let to = spec(&format!("{b}[{dims}]"));
            let cast = prepare(Op::Cast, &[from], &[to]).unwrap();
            bench_plan(c, &group, "contiguous_cast", &cast, 1);
            for (pname, placement) in NARROW_PLACEMENTS {
                let tiled = |dt: &str| spec(&format!("{dt}[{dims}] {placement}"));
                let tess = prepare(Op::CastTess, &[from], &[tiled(b)]).unwrap();
                bench_plan(c, &group, &format!("tess_{pname}"), &tess, 1);
                let untess = prepare(Op::CastUntess, &[tiled(a)], &[to]).unwrap();
                bench_plan(c, &group, &format!("untess_{pname}"), &untess, 1);
            }
        }
    }
}

/// Tensors above 16 MiB: one thread against every thread of the pool.
fn threads(c: &mut Criterion) {
    let dims = "8,112,112,64"; // 6.4M elements: 25.7 MB of f32
    let from = spec(&format!("f32[{dims}]"));
    let cases = [
        ("cast", Op::Cast, spec(&format!("bf16[{dims}]"))),
        (
            "tess_tiled_1x4x4x16",
            Op::CastTess,
            spec(&format!("bf16[{dims}] {}", PLACEMENTS[0].1)),
        ),
        (
            "tess_cblocked_4x4",
            Op::CastTess,
            spec(&format!("bf16[{dims}] {}", PLACEMENTS[2].1)),
        ),
    ];
    for (name, op, to) in cases {
        let plan = prepare(op, &[from], &[to]).unwrap();
        let group = format!("threads/{name}");
        bench_plan(c, &group, "threads_1", &plan, 1);
        bench_plan(c, &group, "threads_auto", &plan, 0);
    }
    // The machine's ceiling: a memcpy of the Cast's input bytes on 1 and on 2 threads
    // (each thread copies one half). Memory-bound kernels cannot gain more than this.
    let n = 8 * 112 * 112 * 64 * 4;
    let src = Paged::zeroed(n);
    let mut copy = Paged::zeroed(n);
    let mut g = c.benchmark_group("threads/memcpy_input");
    g.bench_function("threads_1", |b| {
        b.iter(|| {
            copy.as_mut_slice()
                .copy_from_slice(black_box(src.as_slice()))
        })
    });
    g.bench_function("threads_auto", |b| {
        b.iter(|| {
            let (s0, s1) = black_box(src.as_slice()).split_at(n / 2);
            let (d0, d1) = copy.as_mut_slice().split_at_mut(n / 2);
            std::thread::scope(|sc| {
                sc.spawn(|| d1.copy_from_slice(s1));
                d0.copy_from_slice(s0);
            });
        })
    });
    g.finish();
    let tiled = spec(&format!("f32[{dims}] {}", PLACEMENTS[0].1));
    let plan = prepare(Op::CastUntess, &[tiled], &[spec(&format!("bf16[{dims}]"))]).unwrap();
    bench_plan(c, "threads/untess_tiled_1x4x4x16", "threads_1", &plan, 1);
    bench_plan(c, "threads/untess_tiled_1x4x4x16", "threads_auto", &plan, 0);
    let plan = prepare(
        Op::Argmax { axis: 1 },
        &[spec("f32[2048,4096]")],
        &[spec("i64[2048]")],
    )
    .unwrap();
    bench_plan(c, "threads/argmax_2048x4096_axis1", "threads_1", &plan, 1);
    bench_plan(
        c,
        "threads/argmax_2048x4096_axis1",
        "threads_auto",
        &plan,
        0,
    );
    // Few outputs over a long reduced axis (7 and 64 columns along axis 0, 28 and 64 MiB):
    // the workers split the reduced axis, not the outputs.
    for (dims, cols) in [("1048576,7", 7), ("262144,64", 64)] {
        let plan = prepare(
            Op::Argmax { axis: 0 },
            &[spec(&format!("f32[{dims}]"))],
            &[spec(&format!("i64[{cols}]"))],
        )
        .unwrap();
        let group = format!("threads/argmax_{}_axis0", dims.replace(',', "x"));
        bench_plan(c, &group, "threads_1", &plan, 1);
        bench_plan(c, &group, "threads_auto", &plan, 0);
    }
    // A tiled input reduced along C: each worker unpacks its own slabs of whole tiles.
    let plan = prepare(
        Op::Argmax { axis: 3 },
        &[spec(&format!("f32[{dims}] {}", PLACEMENTS[0].1))],
        &[spec("i64[8,112,112]")],
    )
    .unwrap();
    let group = "threads/argmax_tiled_1x4x4x16_axis3";
    bench_plan(c, group, "threads_1", &plan, 1);
    bench_plan(c, group, "threads_auto", &plan, 0);
}

/// The obvious scalar argmax: for each output element, scan the reduced axis.
fn scalar_argmax(v: &[f32], rows: usize, cols: usize, axis: usize, out: &mut [i64]) {
    let (n, m, step, next) = if axis == 1 {
        (rows, cols, 1, cols)
    } else {
        (cols, rows, cols, 1)
    };
    for (o, slot) in out.iter_mut().enumerate().take(n) {
        let base = o * next;
        let (mut bi, mut best) = (0, v[base]);
        for k in 1..m {
            let x = v[base + k * step];
            if x > best {
                best = x;
                bi = k;
            }
        }
        *slot = bi as i64;
    }
}

fn argmax(c: &mut Criterion) {
    let (rows, cols) = (256usize, 4096usize);
    let from = spec(&format!("f32[{rows},{cols}]"));
    let inp = input(&from, rows * cols * 4);
    let vals: Vec<f32> = inp
        .as_slice()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for axis in [1usize, 0] {
        let out_n = if axis == 1 { rows } else { cols };
        let plan = prepare(
            Op::Argmax { axis },
            &[from],
            &[spec(&format!("i64[{out_n}]"))],
        )
        .unwrap();
        let group = format!("argmax/f32_256x4096_axis{axis}");
        bench_plan(c, &group, "strideweave", &plan, 1);
        let mut idx = vec![0i64; out_n];
        c.benchmark_group(&group)
            .bench_function("scalar_loop", |b| {
                b.iter(|| scalar_argmax(black_box(&vals), rows, cols, axis, &mut idx))
            });
    }
    // A tiled input: the channels of f32[1,57,55,40] in mla-tiled 1x4x4x16.
    let t = spec("f32[1,57,55,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    let plan = prepare(Op::Argmax { axis: 3 }, &[t], &[spec("i64[1,57,55]")]).unwrap();
    bench_plan(
        c,
        "argmax/f32_1x57x55x40_tiled_axis3",
        "strideweave",
        &plan,
        1,
    );
    let flat = spec("f32[1,57,55,40]");
    let plan = prepare(Op::Argmax { axis: 3 }, &[flat], &[spec("i64[1,57,55]")]).unwrap();
    bench_plan(
        c,
        "argmax/f32_1x57x55x40_tiled_axis3",
        "contiguous_input",
        &plan,
        1,
    );
}

criterion_group!(benches, matrix, narrow, threads, argmax);
criterion_main!(benches);
