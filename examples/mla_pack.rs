//! The MLA tiled pack, written with tensors: f32 NHWC in, the bytes of
//! `bf16[N,H,W,C] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)` out, byte planes
//! included. The built-in CastTess kernel produces the same bytes (checked in `main`).
//!
//! The placement, in layout terms: the output is cut into tiles of 4x4 pixels x 16
//! channels; tile `(n, ht, wt, ct)` starts at byte `512 * (((n*nC + ct)*nH + ht)*nW + wt)`
//! and holds 16 pixels (W fastest), each pixel 16 low bytes then 16 high bytes. So the
//! output is one bf16 tensor stored as **byte planes** 16 bytes apart, whose low bytes
//! have the logical shape `(N, (4,nH), (4,nW), (16,nC))`.
//!
//! The kernel walks the 1x4x4x16 tiles of the input's shape, channel tiles fastest (the
//! input's memory order), and converts each tile with one converting-copy plan; edge
//! tiles (H, W or C not a multiple of the tile) are clipped to the input and the rest
//! of their output tile is written as zeros (the placement's padding).
//!
//! Run: `cargo run --release --example mla_pack`.

use half::bf16;
use strideweave::tensor::{ConvertPlan, Tensor, TileWalk};
use strideweave::{Layout, LayoutError, Shape, Stride};

/// Bytes per output tile: 4x4 pixels x 16 channels x 2 bytes (already a multiple of 64).
pub const TILE_BYTES: u64 = 512;

/// Output bytes for `[n, h, w, c]`.
pub fn packed_len(n: u64, h: u64, w: u64, c: u64) -> u64 {
    n * h.div_ceil(4) * w.div_ceil(4) * c.div_ceil(16) * TILE_BYTES
}

/// The low-byte plane of the whole output as a layout of logical shape
/// `(N, (4,nH), (4,nW), (16,nC))`.
pub fn low_plane(n: u64, h: u64, w: u64, c: u64) -> Result<Layout, LayoutError> {
    let (nh, nw, nc) = (h.div_ceil(4), w.div_ceil(4), c.div_ceil(16));
    let t = TILE_BYTES;
    Layout::new(
        Shape::new((n, (4, nh), (4, nw), (16, nc)))?,
        Stride::new((t * nc * nh * nw, (128, t * nw), (32, t), (1, t * nh * nw)))?,
    )
}

/// The pack of one NHWC shape, prepared once (as the built-in `prepare` does): the
/// tile walk over both tensors' layouts and the converting-copy plan of one tile.
pub struct MlaPack {
    dims: [u64; 4],
    input: Layout,
    output: Layout,
    tiles: TileWalk,
    plan: ConvertPlan,
}

impl MlaPack {
    /// Prepares the pack of an f32 `[n, h, w, c]` tensor.
    pub fn new([n, h, w, c]: [u64; 4]) -> Result<MlaPack, LayoutError> {
        let shape = Shape::new((n, h, w, c))?;
        let (input, output) = (Layout::row_major(shape)?, low_plane(n, h, w, c)?);
        // the 1x4x4x16 tiles of the input's shape, followed in both layouts; W tiles
        // fastest, so that a row of interior tiles is one run
        let tiles =
            TileWalk::new(&shape, &[1, 4, 4, 16], &[&input, &output])?.order(&[3, 2, 1, 0])?;
        // one converting copy, planned once: f32 tile -> bf16 byte-plane tile
        let plan = ConvertPlan::new(tiles.tile_layout(0), tiles.tile_layout(1))?;
        Ok(MlaPack {
            dims: [n, h, w, c],
            input,
            output,
            tiles,
            plan,
        })
    }

    /// Packs `src` (f32, contiguous) into `out` (`packed_len` bytes).
    pub fn run(&self, src: &[f32], out: &mut [u8]) -> Result<(), LayoutError> {
        let input = Tensor::new(src, self.input)?;
        // the output: one bf16 tensor stored as byte planes 16 bytes apart
        let mut output = Tensor::bf16_planes(out, 16, self.output)?;
        for t in self.tiles.runs() {
            // a row of interior tiles converted at once; an edge tile clipped to the
            // input, with zeros for the rest of the tile (the placement's padding)
            self.plan
                .convert_tiles(&input, &mut output, &t, (0, 1), true)?;
        }
        Ok(())
    }

    /// The dims this pack was prepared for.
    pub fn dims(&self) -> [u64; 4] {
        self.dims
    }
}

/// Packs `src` (f32, `[n, h, w, c]`, contiguous) into `out` (`packed_len` bytes).
pub fn pack(src: &[f32], dims: [u64; 4], out: &mut [u8]) -> Result<(), LayoutError> {
    MlaPack::new(dims)?.run(src, out)
}

/// The same bytes by the placement's definition, one element at a time.
pub fn pack_naive(src: &[f32], [_n, h, w, c]: [u64; 4], out: &mut [u8]) {
    let (nh, nw, nc) = (h.div_ceil(4), w.div_ceil(4), c.div_ceil(16));
    out.fill(0);
    for (i, &x) in src.iter().enumerate() {
        let i = i as u64;
        let (ci, wi, hi, ni) = (i % c, (i / c) % w, (i / (c * w)) % h, i / (c * w * h));
        let tile = ((ni * nc + ci / 16) * nh + hi / 4) * nw + wi / 4;
        let pixel = (hi % 4) * 4 + wi % 4;
        let at = (tile * TILE_BYTES + pixel * 32 + ci % 16) as usize;
        let b = bf16::from_f32(x).to_bits();
        out[at] = b as u8;
        out[at + 16] = (b >> 8) as u8;
    }
}

/// The built-in CastTess on the same tensors.
pub fn pack_builtin(src: &[f32], [n, h, w, c]: [u64; 4], out: &mut [u8]) {
    use strideweave::tensor::{prepare, Op, TensorSpec};
    let from: TensorSpec = format!("f32[{n},{h},{w},{c}]").parse().unwrap();
    let to: TensorSpec =
        format!("bf16[{n},{h},{w},{c}] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)")
            .parse()
            .unwrap();
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    let bytes: Vec<u8> = src.iter().flat_map(|x| x.to_le_bytes()).collect();
    plan.run(&[&bytes], &mut [out]).unwrap();
}

#[allow(dead_code)]
fn main() {
    for dims in [[1, 8, 8, 16], [1, 5, 7, 20], [2, 3, 9, 40], [1, 56, 56, 64]] {
        let len: u64 = dims.iter().product();
        let src: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin() * 100.0).collect();
        let bytes = packed_len(dims[0], dims[1], dims[2], dims[3]) as usize;
        let (mut a, mut b, mut c) = (vec![0xAA; bytes], vec![0; bytes], vec![0; bytes]);
        pack(&src, dims, &mut a).unwrap();
        pack_naive(&src, dims, &mut b);
        pack_builtin(&src, dims, &mut c);
        assert_eq!(a, b, "{dims:?}: DSL pack differs from the definition");
        assert_eq!(
            a, c,
            "{dims:?}: DSL pack differs from the built-in CastTess"
        );
        println!("{dims:?}: {bytes} bytes, identical to CastTess");
    }
}
