//! The MLA tiled pack, written with tensors: f32 NHWC in, the bytes of
//! `bf16[N,H,W,C] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)` out, byte planes
//! included. The built-in CastTess kernel produces the same bytes (checked in `main`).
//!
//! The placement, in layout terms: the output is cut into tiles of 4x4 pixels x 16
//! channels; tile `(n, ht, wt, ct)` starts at byte `512 * (((n*nC + ct)*nH + ht)*nW + wt)`
//! and holds 16 pixels (W fastest), each pixel 16 low bytes then 16 high bytes. So the
//! low bytes of the whole tensor form one u8 tensor of logical shape
//! `(N, (4,nH), (4,nW), (16,nC))`, and the high bytes the same tensor 16 bytes later.
//!
//! Run: `cargo run --release --example mla_pack`.

use half::bf16;
use strideweave::tensor::{transform, CopyPlan, Fragment, IdentityTensor, Tensor};
use strideweave::{layout_type, Layout, LayoutError, Shape, StaticLayout, Stride};

/// One tile in key order `(n, h, w, c)`, c fastest in memory: the register tile.
pub type TileRegs = layout_type!((1,4,4,16):(256,64,16,1));
/// One byte plane of one output tile: pixel `(h, w)` at `32 * (4h + w)`, channel `c` at `+c`.
pub type PlaneTile = layout_type!((1,4,4,16):(0,128,32,1));
/// Bytes per output tile: 4x4 pixels x 16 channels x 2 bytes (already a multiple of 64).
pub const TILE_BYTES: u64 = 512;

/// Output bytes for `[n, h, w, c]`.
pub fn packed_len(n: u64, h: u64, w: u64, c: u64) -> u64 {
    n * h.div_ceil(4) * w.div_ceil(4) * c.div_ceil(16) * TILE_BYTES
}

/// The low-byte plane of the whole output as a tensor of logical shape
/// `(N, (4,nH), (4,nW), (16,nC))`.
pub fn low_plane(n: u64, h: u64, w: u64, c: u64) -> Result<Layout, LayoutError> {
    let (nh, nw, nc) = (h.div_ceil(4), w.div_ceil(4), c.div_ceil(16));
    let t = TILE_BYTES;
    Layout::new(
        Shape::new((n, (4, nh), (4, nw), (16, nc)))?,
        Stride::new((t * nc * nh * nw, (128, t * nw), (32, t), (1, t * nh * nw)))?,
    )
}

/// Packs `src` (f32, `[n, h, w, c]`, contiguous) into `out` (`packed_len` bytes).
///
/// The DSL code is generic and inlines into its caller, so it is compiled for whatever
/// target features the caller enables: here AVX2 when the CPU has it (as the built-in
/// kernels do), so the conversions use 256-bit vectors.
pub fn pack(src: &[f32], dims: [u64; 4], out: &mut [u8]) -> Result<(), LayoutError> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2
        return unsafe { pack_avx2(src, dims, out) };
    }
    pack_body(src, dims, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pack_avx2(src: &[f32], dims: [u64; 4], out: &mut [u8]) -> Result<(), LayoutError> {
    pack_body(src, dims, out)
}

#[inline(always)]
fn pack_body(src: &[f32], [n, h, w, c]: [u64; 4], out: &mut [u8]) -> Result<(), LayoutError> {
    let tiler = [1, 4, 4, 16];
    let input = Tensor::new(src, Layout::row_major(Shape::new((n, h, w, c))?)?)?;
    let mut output = Tensor::new(&mut out[..], low_plane(n, h, w, c)?)?;
    let src_tiles = input.tiles(tiler)?;
    let coords = IdentityTensor::new(&Shape::new((n, h, w, c))?)?.tiles(tiler)?;
    let mut dst_tiles = output.tiles_mut(tiler)?;
    // visit the tiles in the input's memory order (channel tile fastest): a layout from
    // visit number to tile key, whose keys run over (n, ht, wt, ct) first mode fastest
    let (nh, nw, nc) = (h.div_ceil(4), w.div_ceil(4), c.div_ceil(16));
    let order = Layout::new(
        Shape::new((nc, nw, nh, n))?,
        Stride::new((n * nh * nw, n * nh, n, 1))?,
    )?;
    let mut regs: Fragment<u16, TileRegs, { TileRegs::COSIZE as usize }> = Fragment::filled(0);
    // interior tiles: src tile -> registers with whole runs (planned once)
    let load = CopyPlan::new(src_tiles.tile_layout(), &TileRegs::LAYOUT)?;
    let bits = |x: f32| bf16::from_f32(x).to_bits();
    for visit in 0..order.size() {
        let k = order.index_of(visit)?;
        if coords.inside(k) {
            load.transform(&src_tiles.tile(k)?, &mut regs, bits)?;
        } else {
            // edge tile: the identity tensor masks what lies past the input; padding is 0
            regs.data_mut().fill(0);
            src_tiles.transform_tile_if(k, &coords, &mut regs, |&x| bits(x))?;
        }
        let (bytes, _) = dst_tiles.tile_mut(k)?.into_parts();
        transform(
            &regs,
            &mut Tensor::new(&mut bytes[..], PlaneTile::default())?,
            |b| b as u8,
        )?;
        transform(
            &regs,
            &mut Tensor::new(&mut bytes[16..], PlaneTile::default())?,
            |b| (b >> 8) as u8,
        )?;
    }
    Ok(())
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
