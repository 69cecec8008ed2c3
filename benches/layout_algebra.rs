//! Runtime-layout benchmarks: `index` of a rank-4, depth-2 layout (by coordinate and by
//! integer) against the same arithmetic written by hand, the algebra on typical tiling
//! layouts, and `eval` on 100,000 lines (in process, and the release binary if built).
//!
//! `cargo bench --bench layout_algebra -- --warm-up-time 1 --measurement-time 3`
//! Results: `benches/RESULTS-core.md`.

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use strideweave::eval::eval_line;
use strideweave::{Coord, Layout};

/// Rank 4, depth 2, 8 leaves, 4096 coordinates (a permuted compact layout).
const INDEX_LAYOUT: &str = "((2,4),(4,2),(2,2),(8,2)):((1,256),(2,1024),(8,16),(32,2048))";
const EXT: [u64; 8] = [2, 4, 4, 2, 2, 2, 8, 2];
const STR: [u64; 8] = [1, 256, 2, 1024, 8, 16, 32, 2048];

fn lay(s: &str) -> Layout {
    s.parse().unwrap()
}

/// The hand-written mixed-radix decode with extents and strides known only at run time.
#[inline(never)]
fn hand_int(i: u64, ext: &[u64; 8], st: &[u64; 8]) -> u64 {
    let mut rest = i;
    let mut idx = 0;
    for k in 0..8 {
        idx += (rest % ext[k]) * st[k];
        rest /= ext[k];
    }
    idx
}

/// The hand-written decode with the extents and strides as compile-time constants.
#[inline(never)]
fn hand_int_const(i: u64) -> u64 {
    let mut rest = i;
    let mut idx = 0;
    for k in 0..8 {
        idx += (rest % EXT[k]) * STR[k];
        rest /= EXT[k];
    }
    idx
}

/// The hand-written dot product of leaf coordinates and strides.
#[inline(never)]
fn hand_coord(c: &[u64; 8], st: &[u64; 8]) -> u64 {
    let mut idx = 0;
    for k in 0..8 {
        idx += c[k] * st[k];
    }
    idx
}

fn bench_index(c: &mut Criterion) {
    let l = lay(INDEX_LAYOUT);
    assert_eq!(
        (l.rank(), l.depth(), l.leaf_count(), l.size()),
        (4, 2, 8, 4096)
    );
    let n = l.size();
    // leaf coordinates and per-mode coordinates of every integer key
    let leaf_coords: Vec<[u64; 8]> = (0..n)
        .map(|i| {
            let mut r = i;
            std::array::from_fn(|k| {
                let v = r % EXT[k];
                r /= EXT[k];
                v
            })
        })
        .collect();
    let mode_coords: Vec<Coord> = (0..n)
        .map(|i| Coord::new([i % 8, (i / 8) % 8, (i / 64) % 4, i / 256]).unwrap())
        .collect();
    for i in 0..n {
        let want = hand_int_const(i);
        assert_eq!(l.index_of(i).unwrap(), want);
        assert_eq!(hand_int(i, &EXT, &STR), want);
        assert_eq!(l.index_leaves(&leaf_coords[i as usize]).unwrap(), want);
        assert_eq!(hand_coord(&leaf_coords[i as usize], &STR), want);
        assert_eq!(l.index(&mode_coords[i as usize]).unwrap(), want);
    }

    let mut g = c.benchmark_group("index_rank4_depth2");
    g.throughput(Throughput::Elements(n));
    g.bench_function("runtime_index_of_int", |b| {
        b.iter(|| {
            let l = black_box(&l);
            (0..n).fold(0u64, |acc, i| acc.wrapping_add(l.index_of(i).unwrap()))
        })
    });
    g.bench_function("runtime_index_linear_coord", |b| {
        b.iter(|| {
            let l = black_box(&l);
            (0..n).fold(0u64, |acc, i| {
                acc.wrapping_add(l.index(&Coord::linear(i)).unwrap())
            })
        })
    });
    g.bench_function("hand_int_runtime_extents", |b| {
        b.iter(|| {
            let (e, s) = (black_box(&EXT), black_box(&STR));
            (0..n).fold(0u64, |acc, i| acc.wrapping_add(hand_int(i, e, s)))
        })
    });
    g.bench_function("hand_int_const_extents", |b| {
        b.iter(|| (0..black_box(n)).fold(0u64, |acc, i| acc.wrapping_add(hand_int_const(i))))
    });
    g.bench_function("runtime_index_leaves_coord", |b| {
        b.iter(|| {
            let l = black_box(&l);
            leaf_coords
                .iter()
                .fold(0u64, |acc, c| acc.wrapping_add(l.index_leaves(c).unwrap()))
        })
    });
    g.bench_function("runtime_index_mode_coord", |b| {
        b.iter(|| {
            let l = black_box(&l);
            mode_coords
                .iter()
                .fold(0u64, |acc, c| acc.wrapping_add(l.index(c).unwrap()))
        })
    });
    g.bench_function("hand_coord_dot", |b| {
        b.iter(|| {
            let s = black_box(&STR);
            leaf_coords
                .iter()
                .fold(0u64, |acc, c| acc.wrapping_add(hand_coord(c, s)))
        })
    });
    g.finish();
}

fn bench_algebra(c: &mut Criterion) {
    // typical tiling layouts: a 128x64 row-major tile, 32x8 thread tiles, a 16x16 grid
    let a = lay("(128,64):(64,1)");
    let b = lay("(32,8):(1,32)");
    let thr = lay("(32,4):(1,128)");
    let big = lay("(128,128):(1,128)");
    let tiles = [lay("32:1"), lay("8:1")];
    let blk = lay("(4,8):(8,1)");
    let grid = lay("(2,3):(1,2)");
    let mut g = c.benchmark_group("algebra");
    g.bench_function("compose (128,64):(64,1) o (32,8):(1,32)", |bn| {
        bn.iter(|| black_box(&a).compose(black_box(&b)).unwrap())
    });
    g.bench_function("complement (32,4):(1,128) to 16384", |bn| {
        bn.iter(|| black_box(&thr).complement(black_box(16384)).unwrap())
    });
    g.bench_function("zipped_divide (128,128):(1,128) by [32:1,8:1]", |bn| {
        bn.iter(|| black_box(&big).zipped_divide(black_box(&tiles)).unwrap())
    });
    g.bench_function("divide (128,128):(1,128) by (32,4):(1,128)", |bn| {
        bn.iter(|| black_box(&big).divide(black_box(&thr)).unwrap())
    });
    g.bench_function("logical_product (4,8):(8,1) x (2,3):(1,2)", |bn| {
        bn.iter(|| black_box(&blk).logical_product(black_box(&grid)).unwrap())
    });
    g.bench_function("blocked_product (4,8):(8,1) x (2,3):(1,2)", |bn| {
        bn.iter(|| black_box(&blk).blocked_product(black_box(&grid)).unwrap())
    });
    g.bench_function("coalesce (128,128):(1,128)", |bn| {
        bn.iter(|| black_box(&big).coalesce())
    });
    g.bench_function("right_inverse (32,4):(1,128)", |bn| {
        bn.iter(|| black_box(&thr).right_inverse().unwrap())
    });
    g.bench_function("parse (2,(3,4)):(1,(10,100))", |bn| {
        bn.iter(|| {
            black_box("(2,(3,4)):(1,(10,100))")
                .parse::<Layout>()
                .unwrap()
        })
    });
    g.finish();
}

/// The expression mix of the 100,000-line eval measurements.
const MIX: &[&str] = &[
    "index((2,(3,4)):(1,(10,100)), (1,(2,3)))",
    "compose(20:2, (5,4):(4,1))",
    "complement((2,2):(1,6), 24)",
    "zipped_divide((8,8,3):(8,1,64), [2:1,4:1])",
    "divide((4,2,3):(2,1,8), 4:2)",
    "logical_product((2,2):(1,2), 3:1)",
    "is_injective((1048576,1048576):(1,1048575))",
    "uniform_preimage_extent((4,3):(0,1), 3)",
    "coalesce((2,(1,6)):(1,(6,2)))",
    "layout((2,(3,4)),(1,2,6))",
];

fn eval_input(lines: usize) -> String {
    let mut s = String::with_capacity(lines * 40);
    for i in 0..lines {
        s.push_str(MIX[i % MIX.len()]);
        s.push('\n');
    }
    s
}

fn bench_eval(c: &mut Criterion) {
    let input = eval_input(100_000);
    let mut g = c.benchmark_group("eval");
    g.sample_size(10);
    g.throughput(Throughput::Elements(100_000));
    g.bench_with_input(
        BenchmarkId::new("eval_line_in_process", "100000 lines"),
        &input,
        |b, input| b.iter(|| input.lines().map(|l| eval_line(l).len()).sum::<usize>()),
    );
    g.finish();
}

/// Times the release binary on a generated 100,000-line file, if it has been built.
fn eval_binary_100k() {
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/strideweave");
    if !bin.exists() {
        println!(
            "eval binary: {} not built; run `cargo build --release -p strideweave-cli`",
            bin.display()
        );
        return;
    }
    let path = std::env::temp_dir().join(format!("strideweave-eval-{}.txt", std::process::id()));
    std::fs::write(&path, eval_input(100_000)).unwrap();
    let mut times = Vec::new();
    for _ in 0..7 {
        let file = std::fs::File::open(&path).unwrap();
        let start = std::time::Instant::now();
        let out = std::process::Command::new(&bin)
            .arg("eval")
            .stdin(file)
            .output()
            .unwrap();
        times.push(start.elapsed());
        assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), 100_000);
    }
    let _ = std::fs::remove_file(&path);
    times.sort();
    println!(
        "eval binary: 100000 lines, 7 runs: min {:?}, median {:?}, max {:?}",
        times[0], times[3], times[6]
    );
}

criterion_group!(benches, bench_index, bench_algebra, bench_eval);

fn main() {
    benches();
    eval_binary_100k();
    Criterion::default().configure_from_args().final_summary();
}
