//! A small f32 GEMM written with tensors, `C = A B` (all row-major): C is cut into
//! `MR x NR` tiles, K into `KC` blocks; each step copies a tile of A and of B into
//! register fragments (whole runs, planned once) and accumulates into a third fragment,
//! whose static layout makes every index a constant. Edge tiles are masked with
//! identity tensors (the fragments are zero there, so they add nothing).
//!
//! Run: `cargo run --release --example gemm`.

use strideweave::tensor::{fill, CopyPlan, Fragment, IdentityTensor, Tensor};
use strideweave::{layout_type, Layout, LayoutError, Shape, StaticLayout};

/// Rows of a C tile.
pub const MR: u64 = 4;
/// Columns of a C tile.
pub const NR: u64 = 16;
/// Depth of one K block.
pub const KC: u64 = 64;

/// A tile of A in registers, row-major.
pub type ARegs = layout_type!((4,64):(64,1));
/// A tile of B in registers, row-major.
pub type BRegs = layout_type!((64,16):(16,1));
/// The accumulators, row-major.
pub type CRegs = layout_type!((4,16):(16,1));

/// `c = a * b` for row-major `a: m x k`, `b: k x n`, `c: m x n`.
///
/// The DSL code inlines into its caller, so it is compiled for the caller's target
/// features: AVX2 when the CPU has it (no FMA: products and sums stay separately
/// rounded, as in the naive loop).
pub fn gemm(
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    m: u64,
    n: u64,
    k: u64,
) -> Result<(), LayoutError> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2
        return unsafe { gemm_avx2(a, b, c, m, n, k) };
    }
    gemm_body(a, b, c, m, n, k)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gemm_avx2(
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    m: u64,
    n: u64,
    k: u64,
) -> Result<(), LayoutError> {
    gemm_body(a, b, c, m, n, k)
}

#[inline(always)]
fn gemm_body(
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    m: u64,
    n: u64,
    k: u64,
) -> Result<(), LayoutError> {
    let (sa, sb, sc) = (
        Shape::new((m, k))?,
        Shape::new((k, n))?,
        Shape::new((m, n))?,
    );
    let ta = Tensor::new(a, Layout::row_major(sa)?)?;
    let tb = Tensor::new(b, Layout::row_major(sb)?)?;
    let mut tc = Tensor::new(c, Layout::row_major(sc)?)?;
    let (a_tiles, b_tiles) = (ta.tiles([MR, KC])?, tb.tiles([KC, NR])?);
    let mut c_tiles = tc.tiles_mut([MR, NR])?;
    let a_coords = IdentityTensor::new(&sa)?.tiles([MR, KC])?;
    let b_coords = IdentityTensor::new(&sb)?.tiles([KC, NR])?;
    let c_coords = IdentityTensor::new(&sc)?.tiles([MR, NR])?;
    let load_a = CopyPlan::new(a_tiles.tile_layout(), &ARegs::LAYOUT)?;
    let load_b = CopyPlan::new(b_tiles.tile_layout(), &BRegs::LAYOUT)?;
    let store_c = CopyPlan::new(&CRegs::LAYOUT, c_tiles.tile_layout())?;
    let mut ra: Fragment<f32, ARegs, { ARegs::COSIZE as usize }> = Fragment::filled(0.0);
    let mut rb: Fragment<f32, BRegs, { BRegs::COSIZE as usize }> = Fragment::filled(0.0);
    let mut acc: Fragment<f32, CRegs, { CRegs::COSIZE as usize }> = Fragment::filled(0.0);
    let (tiles_m, tiles_k) = (m.div_ceil(MR), k.div_ceil(KC));
    for tile_c in 0..c_tiles.count() {
        let (ti, tj) = (tile_c % tiles_m, tile_c / tiles_m);
        fill(&mut acc, 0.0);
        for tk in 0..tiles_k {
            let (ka, kb) = (ti + tk * tiles_m, tk + tj * tiles_k);
            if a_coords.inside(ka) {
                load_a.copy(&a_tiles.tile(ka)?, &mut ra)?;
            } else {
                fill(&mut ra, 0.0);
                a_tiles.transform_tile_if(ka, &a_coords, &mut ra, |&x| x)?;
            }
            if b_coords.inside(kb) {
                load_b.copy(&b_tiles.tile(kb)?, &mut rb)?;
            } else {
                fill(&mut rb, 0.0);
                b_tiles.transform_tile_if(kb, &b_coords, &mut rb, |&x| x)?;
            }
            micro_kernel(&ra, &rb, &mut acc);
        }
        if c_coords.inside(tile_c) {
            store_c.copy(&acc, &mut c_tiles.tile_mut(tile_c)?)?;
        } else {
            c_tiles.transform_tile_if(tile_c, &c_coords, &acc, |x| x)?;
        }
    }
    Ok(())
}

/// `acc += ra * rb` on register tiles: keys are coordinates `(row, col)` first mode
/// fastest, and every offset is a compile-time constant.
#[inline(always)]
fn micro_kernel<const NA: usize, const NB: usize, const NC: usize>(
    ra: &Fragment<f32, ARegs, NA>,
    rb: &Fragment<f32, BRegs, NB>,
    acc: &mut Fragment<f32, CRegs, NC>,
) {
    let (mr, nr, kc) = (MR as usize, NR as usize, KC as usize);
    for kk in 0..kc {
        for r in 0..mr {
            let x = ra[r + mr * kk];
            for col in 0..nr {
                acc[r + mr * col] += x * rb[kk + kc * col];
            }
        }
    }
}

/// The naive triple loop.
pub fn gemm_naive(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for p in 0..k {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
}

#[allow(dead_code)]
fn main() {
    for (m, n, k) in [(8, 32, 64), (13, 21, 70), (64, 64, 64), (1, 1, 1)] {
        let a: Vec<f32> = (0..m * k).map(|x| ((x * 7) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..k * n).map(|x| ((x * 5) % 13) as f32 - 6.0).collect();
        let (mut c1, mut c2) = (vec![0.0; m * n], vec![0.0; m * n]);
        gemm(&a, &b, &mut c1, m as u64, n as u64, k as u64).unwrap();
        gemm_naive(&a, &b, &mut c2, m, n, k);
        assert_eq!(c1, c2, "{m}x{n}x{k}");
        println!("{m}x{n}x{k}: same as the triple loop");
    }
}
