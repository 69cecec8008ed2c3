//! A tiled matrix transpose written with tensors: both matrices are row-major, the
//! output seen through the transposed layout, so a tile-by-tile copy transposes.
//! Edge tiles (sizes that are not multiples of the tile) are clipped to the matrix: the
//! walk gives each tile its extents, and the same plan copies the clipped box.
//!
//! Run: `cargo run --release --example transpose`.

use strideweave::tensor::{ConvertPlan, Tensor, TileWalk};
use strideweave::{Layout, LayoutError, Shape, Stride};

/// Tile edge.
pub const TILE: u64 = 16;

/// `dst[j * m + i] = src[i * n + j]` for an `m x n` row-major `src`.
pub fn transpose(src: &[f32], m: u64, n: u64, dst: &mut [f32]) -> Result<(), LayoutError> {
    let shape = Shape::new((m, n))?;
    let a = Tensor::new(src, Layout::row_major(shape)?)?;
    // element (i, j) of the result's view is dst[i + j*m]: the n x m row-major output
    let mut b = Tensor::new(dst, Layout::new(shape, Stride::new((1, m))?)?)?;
    // 16x16 tiles of the shape, followed in both layouts, one at a time (cache blocking)
    let tiles = TileWalk::new(&shape, &[TILE, TILE], &[a.layout(), b.layout()])?;
    let plan = ConvertPlan::new(tiles.tile_layout(0), tiles.tile_layout(1))?;
    for t in tiles.iter() {
        // a full tile, or an edge tile clipped to the matrix
        plan.copy_tiles(&a, &mut b, &t, (0, 1))?;
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
