//! A tiled matrix transpose written with tensors: both matrices are row-major, the
//! output seen through the transposed layout, so a plain tile-by-tile `copy` transposes.
//! Edge tiles (sizes that are not multiples of the tile) are masked with an identity
//! tensor and pass through a register fragment.
//!
//! Run: `cargo run --release --example transpose`.

use strideweave::tensor::{CopyPlan, Fragment, IdentityTensor, Tensor};
use strideweave::{layout_type, Layout, LayoutError, Shape, StaticLayout, Stride};

/// Tile edge.
pub const TILE: u64 = 16;
/// A register tile for the edges.
pub type Regs = layout_type!((16,16):(1,16));

/// `dst[j * m + i] = src[i * n + j]` for an `m x n` row-major `src`.
pub fn transpose(src: &[f32], m: u64, n: u64, dst: &mut [f32]) -> Result<(), LayoutError> {
    let shape = Shape::new((m, n))?;
    let a = Tensor::new(src, Layout::row_major(shape)?)?;
    // element (i, j) of the result's view is dst[i + j*m]: the n x m row-major output
    let mut b = Tensor::new(dst, Layout::new(shape, Stride::new((1, m))?)?)?;
    let a_tiles = a.tiles([TILE, TILE])?;
    let mut b_tiles = b.tiles_mut([TILE, TILE])?;
    let coords = IdentityTensor::new(&shape)?.tiles([TILE, TILE])?;
    let plan = CopyPlan::new(a_tiles.tile_layout(), b_tiles.tile_layout())?;
    let mut regs: Fragment<f32, Regs, { Regs::COSIZE as usize }> = Fragment::filled(0.0);
    for k in 0..a_tiles.count() {
        if coords.inside(k) {
            plan.copy(&a_tiles.tile(k)?, &mut b_tiles.tile_mut(k)?)?;
        } else {
            a_tiles.transform_tile_if(k, &coords, &mut regs, |&x| x)?;
            b_tiles.transform_tile_if(k, &coords, &regs, |x| x)?;
        }
    }
    Ok(())
}

/// The hand-written blocked transpose (same tile edge).
pub fn transpose_blocked(src: &[f32], m: usize, n: usize, dst: &mut [f32]) {
    let t = TILE as usize;
    for i0 in (0..m).step_by(t) {
        for j0 in (0..n).step_by(t) {
            for i in i0..(i0 + t).min(m) {
                for j in j0..(j0 + t).min(n) {
                    dst[j * m + i] = src[i * n + j];
                }
            }
        }
    }
}

#[allow(dead_code)]
fn main() {
    for (m, n) in [(64, 64), (37, 50), (1, 17), (128, 96)] {
        let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
        let (mut a, mut b) = (vec![0.0; m * n], vec![0.0; m * n]);
        transpose(&src, m as u64, n as u64, &mut a).unwrap();
        transpose_blocked(&src, m, n, &mut b);
        assert_eq!(a, b, "{m}x{n}");
        println!("{m}x{n}: transposed, same as the hand-written loop");
    }
}
