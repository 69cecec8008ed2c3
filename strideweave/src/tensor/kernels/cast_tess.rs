//! CastTess: Cast into an MlaTiled or MlaCBlocked placement, writing every byte of the
//! span (padding and alignment gaps as zeros); and its inverse CastUntess.
//!
//! The tile packing loop is generic over [`TileDims`]: [`StaticTile<L>`] for a static
//! tile layout `L` (a [`StaticLayout`] of shape `(TC, TW, TH, TD)` with the compact
//! strides `(1, TC, TC*TW, TC*TW*TH)`, checked by the compiler) gives a monomorphized
//! loop whose tile extents and in-tile strides are compile-time constants;
//! [`RuntimeTile`] runs the very same loop with run-time extents (the fallback),
//! producing identical bytes.

use std::marker::PhantomData;

use crate::tensor::convert::{cvt, dispatch_float_pair, Elem};
use crate::tensor::dims::{Dims, MAX_RANK};
use crate::tensor::dtype::DType;
use crate::tensor::error::{Rule, TensorError};
use crate::tensor::placement::{CBlockedGeom, Geometry, StridedGeom, TiledGeom, CBLOCK_LANES};
use crate::tensor::plan::TileDispatch;
use crate::tensor::spec::TensorSpec;
use crate::{Static, StaticLayout, C};

/// The tile extents `[TD, TH, TW, TC]` of a static tile layout, checked by the compiler.
///
/// A tile layout is a flat rank-4 layout with shape `(TC, TW, TH, TD)` (first mode
/// fastest, CuTe's convention) whose strides are the in-tile element offsets. The
/// placement spec fixes the order inside a tile (pixels in D/H/W order with W fastest,
/// each pixel `TC` channel slots with channel fastest), so the only admitted strides are
/// the compact ones `(1, TC, TC*TW, TC*TW*TH)`; the stride of an extent-1 mode is never
/// used and is not checked. Anything else panics here, which in a constant is a build
/// error naming the rule.
#[track_caller]
const fn tile_extents(l: &crate::Layout) -> [usize; 4] {
    use crate::message::ConstMessage;
    let mut m = ConstMessage::new();
    m.str("static tile layout ").layout(l);
    if l.rank() != 4 || l.leaf_count() != 4 {
        m.str(": a tile layout is flat and of rank 4, (TC,TW,TH,TD):(1,TC,TC*TW,TC*TW*TH), e.g. (16,4,4,1):(1,16,64,256)");
        panic!("{}", m.as_str());
    }
    let ext = [
        l.leaf_extent(3),
        l.leaf_extent(2),
        l.leaf_extent(1),
        l.leaf_extent(0),
    ];
    // Compact strides: mode k (C, W, H, D) steps over the product of the faster extents.
    let mut want = 1u64;
    let mut k = 0;
    while k < 4 {
        if l.leaf_extent(k) > 1 && l.leaf_stride(k) != want {
            m.str(": mode ")
                .u64(k as u64)
                .str(" has stride ")
                .u64(l.leaf_stride(k))
                .str(" where the compact tile order (1,TC,TC*TW,TC*TW*TH) (channel fastest, then W, H, D) needs ")
                .u64(want)
                .str("; the tile of these extents is ")
                .tuple(l.shape().as_tuple())
                .str(":(1,")
                .u64(ext[3])
                .char(b',')
                .u64(ext[3].saturating_mul(ext[2]))
                .char(b',')
                .u64(ext[3].saturating_mul(ext[2]).saturating_mul(ext[1]))
                .char(b')');
            panic!("{}", m.as_str());
        }
        want = want.saturating_mul(l.leaf_extent(k));
        k += 1;
    }
    if want > u32::MAX as u64 {
        panic!("static tile layout has more than 2^32 elements per tile");
    }
    [
        ext[0] as usize,
        ext[1] as usize,
        ext[2] as usize,
        ext[3] as usize,
    ]
}

/// Tile extents and in-tile strides as seen by the packing loop (compile-time or
/// run-time).
///
/// ```
/// use strideweave::tensor::{RuntimeTile, StaticTile, Tile1x4x4x16, TileDims};
/// fn pixels<T: TileDims>(t: T) -> usize { t.td() * t.th() * t.tw() }
/// assert_eq!(pixels(StaticTile::<Tile1x4x4x16>::new()), 16);
/// assert_eq!(pixels(RuntimeTile { dhwc: [1, 4, 4, 16] }), 16);
/// ```
pub trait TileDims: Copy {
    /// True when the channel extent is known at compile time to be a multiple of 16,
    /// so whole tiles can be packed with 16-lane vector conversions.
    const CHANNEL_VECTORS: bool = false;
    /// Depth.
    fn td(self) -> usize;
    /// Height.
    fn th(self) -> usize;
    /// Width.
    fn tw(self) -> usize;
    /// Channels.
    fn tc(self) -> usize;
    /// In-tile element offsets of one step along D, H, W (a pixel is `tc` slots).
    fn pixel_strides(self) -> [usize; 3] {
        let (th, tw, tc) = (self.th(), self.tw(), self.tc());
        [th * tw * tc, tw * tc, tc]
    }
}

/// The static tile described by the static layout `L` (a [`StaticLayout`]): shape
/// `(TC, TW, TH, TD)`, first mode fastest, strides the compact in-tile element offsets
/// `(1, TC, TC*TW, TC*TW*TH)`. Its extents and strides are compile-time constants, so
/// each tile layout gets its own monomorphized packing loop.
///
/// For MlaCBlocked the tile layout is `(16, TW, TH, 1)` (one 16-lane channel block).
///
/// ```
/// use strideweave::layout_type;
/// use strideweave::tensor::{StaticTile, Tile1x4x4x16, TileDims};
/// type MyTile = layout_type!((16,4,4,1):(1,16,64,256));
/// let t = StaticTile::<MyTile>::new();
/// assert_eq!((t.td(), t.th(), t.tw(), t.tc()), (1, 4, 4, 16));
/// assert_eq!(t.pixel_strides(), [0, 64, 16]); // the extent-1 D mode is never stepped
/// assert_eq!(StaticTile::<MyTile>::DHWC, StaticTile::<Tile1x4x4x16>::DHWC);
/// ```
///
/// A layout that is not the compact tile order fails the build (here channels are not
/// the fastest mode):
///
/// ```compile_fail
/// use strideweave::layout_type;
/// use strideweave::tensor::StaticTile;
/// let t = StaticTile::<layout_type!((16,4,4,1):(4,1,64,256))>::new();
/// ```
///
/// and so does a layout of another rank:
///
/// ```compile_fail
/// use strideweave::layout_type;
/// use strideweave::tensor::StaticTile;
/// let t = StaticTile::<layout_type!((16,4):(1,16))>::new();
/// ```
#[derive(Debug)]
pub struct StaticTile<L>(PhantomData<L>);

impl<L: StaticLayout> StaticTile<L> {
    /// Tile extents `[TD, TH, TW, TC]`, computed by the compiler from `L`. Evaluating
    /// it checks that `L` is a compact rank-4 tile layout (a build error otherwise).
    pub const DHWC: [usize; 4] = tile_extents(&L::LAYOUT);
    /// In-tile element strides of D, H, W (pixel steps), read from `L`'s strides.
    pub const PIXEL_STRIDES: [usize; 3] = [
        Self::stride_or_zero(3),
        Self::stride_or_zero(2),
        Self::stride_or_zero(1),
    ];

    const fn stride_or_zero(k: usize) -> usize {
        // An extent-1 mode is only ever indexed at 0: its stride does not matter.
        if Self::DHWC[3 - k] == 1 {
            0
        } else {
            L::STRIDES[k] as usize
        }
    }

    /// The (zero-sized) value; checks `L` at compile time.
    pub const fn new() -> Self {
        let _ = Self::DHWC;
        StaticTile(PhantomData)
    }
}

impl<L: StaticLayout> Default for StaticTile<L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<L> Clone for StaticTile<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for StaticTile<L> {}

impl<L: StaticLayout> TileDims for StaticTile<L> {
    const CHANNEL_VECTORS: bool = Self::DHWC[3] % 16 == 0;
    #[inline(always)]
    fn td(self) -> usize {
        Self::DHWC[0]
    }
    #[inline(always)]
    fn th(self) -> usize {
        Self::DHWC[1]
    }
    #[inline(always)]
    fn tw(self) -> usize {
        Self::DHWC[2]
    }
    #[inline(always)]
    fn tc(self) -> usize {
        Self::DHWC[3]
    }
    #[inline(always)]
    fn pixel_strides(self) -> [usize; 3] {
        Self::PIXEL_STRIDES
    }
}

/// Run-time tile extents (the fallback loop); in-tile strides are the compact ones.
///
/// ```
/// use strideweave::tensor::{RuntimeTile, TileDims};
/// assert_eq!(RuntimeTile { dhwc: [2, 3, 4, 5] }.tw(), 4);
/// assert_eq!(RuntimeTile { dhwc: [2, 3, 4, 5] }.pixel_strides(), [60, 20, 5]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeTile {
    /// Extents along D, H, W, C.
    pub dhwc: [usize; 4],
}

impl TileDims for RuntimeTile {
    #[inline(always)]
    fn td(self) -> usize {
        self.dhwc[0]
    }
    #[inline(always)]
    fn th(self) -> usize {
        self.dhwc[1]
    }
    #[inline(always)]
    fn tw(self) -> usize {
        self.dhwc[2]
    }
    #[inline(always)]
    fn tc(self) -> usize {
        self.dhwc[3]
    }
}

/// The static layout type of the compact tile `D x H x W x C`:
/// `(C, W, H, D):(1, C, C*W, C*W*H)`.
macro_rules! tile_layout {
    ($d:literal, $h:literal, $w:literal, $c:literal) => {
        Static<(C<$c>, C<$w>, C<$h>, C<$d>), (C<1>, C<$c>, C<{ $c * $w }>, C<{ $c * $w * $h }>)>
    };
}

macro_rules! static_tiles {
    ($($name:ident = ($d:literal, $h:literal, $w:literal, $c:literal)),* $(,)?) => {
        $(
            #[doc = concat!(
                "The built-in static tile layout D=", $d, " H=", $h, " W=", $w, " C=", $c,
                ": `(", $c, ",", $w, ",", $h, ",", $d, "):(1,", $c, ",", $c, "*", $w, ",",
                $c, "*", $w, "*", $h, ")`.\n\n```\nuse strideweave::{layout_type, Layout, StaticLayout};\n",
                "use strideweave::tensor::", stringify!($name), ";\n",
                "let l: Layout = ", stringify!($name), "::LAYOUT;\n",
                "assert_eq!(l.leaf_extent(0), ", $c, ");\n```"
            )]
            pub type $name = tile_layout!($d, $h, $w, $c);
        )*

        /// Runs the static loop of the first built-in shape equal to the plan's tile.
        fn auto_static(
            is: &TensorSpec,
            a: &StridedGeom,
            src: &[u8],
            os: &TensorSpec,
            g: &Geometry,
            dst: &mut [u8],
        ) -> Option<Result<(), TensorError>> {
            $(
                if check_static::<$name>(g).is_ok() {
                    return Some(run_static::<$name>(is, a, src, os, g, dst));
                }
            )*
            None
        }
    };
}

static_tiles! {
    Tile1x4x4x16 = (1, 4, 4, 16),
    Tile1x1x1x16 = (1, 1, 1, 16),
    Tile1x2x2x16 = (1, 2, 2, 16),
    Tile1x8x8x16 = (1, 8, 8, 16),
    Tile1x1x1x32 = (1, 1, 1, 32),
    Tile1x4x4x32 = (1, 4, 4, 32),
}

fn tile_of(g: &Geometry) -> Option<[u64; 4]> {
    match g {
        Geometry::Tiled(t) => Some(t.tile),
        Geometry::CBlocked(c) => Some([1, c.tile_h, c.tile_w, CBLOCK_LANES]),
        Geometry::Strided(_) => None,
    }
}

/// Checks that the static tile layout `L` is the tile of the tiled geometry `g`.
pub(crate) fn check_static<L: StaticLayout>(g: &Geometry) -> Result<(), TensorError> {
    let want = StaticTile::<L>::DHWC.map(|x| x as u64);
    match tile_of(g) {
        Some(t) if t == want => Ok(()),
        t => Err(TensorError::new(
            Rule::TileMismatch,
            format!(
                "static tile layout {} (D,H,W,C = {want:?}) does not match the placement's tile {t:?}",
                L::LAYOUT
            ),
        )),
    }
}

/// Byte offset in the input of the `o`-th combination of `axes` (row-major, last fastest).
#[inline]
fn outer_offset(mut o: u64, axes: &[usize], ext: &[u64], stride: &[u64]) -> usize {
    let mut off = 0u64;
    for &ax in axes.iter().rev() {
        let e = ext[ax];
        off += (o % e) * stride[ax];
        o /= e;
    }
    off as usize
}

/// Converts one pixel of `tc` channel slots, `cvalid` of them logical, into `pix`.
/// BF16 outputs store byte planes (low bytes, then high bytes); padding slots are zero.
#[inline(always)]
fn write_pixel<S: Elem, D: Elem>(
    tc: usize,
    cvalid: usize,
    src: &[u8],
    base: usize,
    sc: usize,
    pix: &mut [u8],
) {
    if D::DTYPE == DType::BF16 {
        let (lo, hi) = pix.split_at_mut(tc);
        let hi = &mut hi[..tc];
        if cvalid == tc && sc == S::W {
            let s = &src[base..base + tc * S::W];
            for ((l, h), e) in lo.iter_mut().zip(hi.iter_mut()).zip(s.chunks_exact(S::W)) {
                let b = cvt::<S, D>(S::read(e, 0));
                *l = b as u8;
                *h = (b >> 8) as u8;
            }
        } else {
            for c in 0..tc {
                let b = if c < cvalid {
                    cvt::<S, D>(S::read(src, base + c * sc))
                } else {
                    0
                };
                lo[c] = b as u8;
                hi[c] = (b >> 8) as u8;
            }
        }
    } else if cvalid == tc && sc == S::W {
        let s = &src[base..base + tc * S::W];
        for (d, e) in pix.chunks_exact_mut(D::W).zip(s.chunks_exact(S::W)) {
            D::write(d, 0, cvt::<S, D>(S::read(e, 0)));
        }
    } else {
        for (c, d) in pix.chunks_exact_mut(D::W).enumerate() {
            let b = if c < cvalid {
                cvt::<S, D>(S::read(src, base + c * sc))
            } else {
                0
            };
            D::write(d, 0, b);
        }
    }
}

/// Packs into MlaTiled. Tile extents come from `t` (equal to `g.tile`, checked by callers).
fn pack_tiled<T: TileDims, S: Elem, D: Elem>(
    t: T,
    g: &TiledGeom,
    dims: &Dims,
    a: &StridedGeom,
    src: &[u8],
    dst: &mut [u8],
) {
    if g.span == 0 {
        return;
    }
    let (td, th, tw, tc) = (t.td(), t.th(), t.tw(), t.tc());
    let ext = g.ext.map(|x| x as usize);
    let nt = g.ntiles.map(|x| x as usize);
    let s = g.role_axis.map(|r| r.map_or(0, |ax| a.stride[ax] as usize));
    let tile_bytes = g.tile_bytes as usize;
    let tile_raw = g.tile_raw as usize;
    let pix_bytes = tc * D::W;
    let ps = t.pixel_strides();
    let outer_axes = &g.outer_axes[..g.n_outer_axes];
    // Whole interior tiles of F32 -> BF16 with a compile-time channel count that is a
    // multiple of 16 go through the vector tile packer (same bytes as the loop below).
    let vector_tiles = T::CHANNEL_VECTORS
        && S::DTYPE == DType::F32
        && D::DTYPE == DType::BF16
        && s[3] == 4
        && simd::available();
    // Channel tiles innermost: the input is then read pixel row by pixel row, while
    // each tile is still written whole at its storage position (tile number
    // ((outer * nC + ct) * nD + dt) * nH + ht) * nW + wt).
    // Full tiles along D, H, W, C.
    let full = [0, 1, 2, 3].map(|i| ext[i] / t_of(t, i));
    for o in 0..g.n_outer {
        let off_o = outer_offset(o, outer_axes, dims.extents(), &a.stride[..MAX_RANK]);
        let vector_done = vector_tiles
            && simd::interior_f32_bf16(
                t,
                src,
                off_o,
                [s[0], s[1], s[2]],
                o as usize,
                nt,
                full,
                tile_bytes,
                tile_raw,
                dst,
            );
        for dt in 0..nt[0] {
            for ht in 0..nt[1] {
                for wt in 0..nt[2] {
                    let spatial_ok = (dt + 1) * td <= ext[0]
                        && (ht + 1) * th <= ext[1]
                        && (wt + 1) * tw <= ext[2];
                    // Full channel tiles of a full spatial tile were packed by the vector path.
                    let ct_start = if vector_done && spatial_ok {
                        full[3]
                    } else {
                        0
                    };
                    for ct in ct_start..nt[3] {
                        let c0 = ct * tc;
                        let cvalid = tc.min(ext[3] - c0);
                        let idx =
                            (((o as usize * nt[3] + ct) * nt[0] + dt) * nt[1] + ht) * nt[2] + wt;
                        let start = idx * tile_bytes;
                        let Some(tile) = dst.get_mut(start..start + tile_bytes) else {
                            return;
                        };
                        let (body, gap) = tile.split_at_mut(tile_raw);
                        gap.fill(0);
                        for dd in 0..td {
                            let d = dt * td + dd;
                            for hh in 0..th {
                                let h = ht * th + hh;
                                let row_ok = d < ext[0] && h < ext[1];
                                let row_base = off_o + d * s[0] + h * s[1] + c0 * s[3];
                                for ww in 0..tw {
                                    let w = wt * tw + ww;
                                    // In-tile element offset from the tile layout's strides.
                                    let p = (dd * ps[0] + hh * ps[1] + ww * ps[2]) * D::W;
                                    let Some(pix) = body.get_mut(p..p + pix_bytes) else {
                                        return;
                                    };
                                    if row_ok && w < ext[2] {
                                        write_pixel::<S, D>(
                                            tc,
                                            cvalid,
                                            src,
                                            row_base + w * s[2],
                                            s[3],
                                            pix,
                                        );
                                    } else {
                                        pix.fill(0);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn t_of<T: TileDims>(t: T, i: usize) -> usize {
    match i {
        0 => t.td(),
        1 => t.th(),
        2 => t.tw(),
        _ => t.tc(),
    }
}

/// Packs into MlaCBlocked with tile `th x tw` from `t` (TD = 1, TC = 16).
fn pack_cblocked<T: TileDims, S: Elem, D: Elem>(
    t: T,
    g: &CBlockedGeom,
    dims: &Dims,
    a: &StridedGeom,
    src: &[u8],
    dst: &mut [u8],
) {
    if g.span == 0 {
        return;
    }
    let (th, tw) = (t.th(), t.tw());
    const L: usize = CBLOCK_LANES as usize;
    let r = g.rank;
    let (h_ext, w_ext, c_ext) = (g.h as usize, g.w as usize, g.c as usize);
    let (sh, sw, sc) = (
        a.stride[r - 3] as usize,
        a.stride[r - 2] as usize,
        a.stride[r - 1] as usize,
    );
    let outer_axes: [usize; MAX_RANK] = [0, 1, 2, 3, 4, 5];
    let tile_bytes = g.tile_bytes as usize;
    let tile_raw = g.tile_raw as usize;
    let mut tiles = dst.chunks_exact_mut(tile_bytes);
    for o in 0..g.n_outer {
        let off_o = outer_offset(o, &outer_axes[..r - 3], dims.extents(), &a.stride);
        for ht in 0..g.n_th as usize {
            for wt in 0..g.n_tw as usize {
                let Some(tile) = tiles.next() else { return };
                let (body, gap) = tile.split_at_mut(tile_raw);
                gap.fill(0);
                let [_, sh_t, sw_t] = t.pixel_strides();
                for cb in 0..g.n_cb as usize {
                    let c0 = cb * L;
                    let cvalid = L.min(c_ext - c0);
                    for hh in 0..th {
                        let h = ht * th + hh;
                        for ww in 0..tw {
                            let w = wt * tw + ww;
                            // Block cb, then the tile layout's H/W offsets.
                            let p = (cb * th * tw * L + hh * sh_t + ww * sw_t) * D::W;
                            let Some(pix) = body.get_mut(p..p + L * D::W) else {
                                return;
                            };
                            if h < h_ext && w < w_ext {
                                let base = off_o + h * sh + w * sw + c0 * sc;
                                write_pixel::<S, D>(L, cvalid, src, base, sc, pix);
                            } else {
                                pix.fill(0);
                            }
                        }
                    }
                }
            }
        }
    }
}

fn pack<T: TileDims, S: Elem, D: Elem>(
    t: T,
    g: &Geometry,
    dims: &Dims,
    a: &StridedGeom,
    src: &[u8],
    dst: &mut [u8],
) {
    match g {
        Geometry::Tiled(tg) => pack_tiled::<T, S, D>(t, tg, dims, a, src, dst),
        Geometry::CBlocked(cg) => pack_cblocked::<T, S, D>(t, cg, dims, a, src, dst),
        // Admission guarantees a tiled output; a strided one has nothing to pack.
        Geometry::Strided(_) => {}
    }
}

/// Runs CastTess with the static tile layout `L` (callers checked `check_static::<L>`).
pub(crate) fn run_static<L: StaticLayout>(
    is: &TensorSpec,
    a: &StridedGeom,
    src: &[u8],
    os: &TensorSpec,
    g: &Geometry,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    let t = StaticTile::<L>::new();
    dispatch_float_pair!(
        is.dtype,
        os.dtype,
        pack::<StaticTile<L>>(t, g, &is.dims, a, src, dst)
    )
}

/// CastTess: static loop when the tile is a built-in shape (and `dispatch` allows it),
/// else the runtime-tile loop.
pub(crate) fn cast_tess(
    is: &TensorSpec,
    a: &StridedGeom,
    src: &[u8],
    os: &TensorSpec,
    g: &Geometry,
    dst: &mut [u8],
    dispatch: TileDispatch,
) -> Result<(), TensorError> {
    if dispatch == TileDispatch::Auto {
        if let Some(r) = auto_static(is, a, src, os, g, dst) {
            return r;
        }
    }
    let tile = tile_of(g).ok_or_else(|| {
        TensorError::new(Rule::UnsupportedPlacement, "cast-tess: output is not tiled")
    })?;
    // Tile extents are at most the tile bytes, which fit in usize (span checked).
    let t = RuntimeTile {
        dhwc: tile.map(|x| x as usize),
    };
    dispatch_float_pair!(
        is.dtype,
        os.dtype,
        pack::<RuntimeTile>(t, g, &is.dims, a, src, dst)
    )
}

fn untess_impl<S: Elem, D: Elem>(
    dims: &Dims,
    g: &Geometry,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
) {
    if b.span == 0 || g.span() == 0 {
        return;
    }
    let rank = dims.rank();
    let ext = dims.extents();
    let mut coord = [0u64; MAX_RANK];
    loop {
        let mut bits = 0u32;
        for byte in 0..S::W {
            let off = g.byte_offset(dims, &coord[..rank], byte as u64) as usize;
            bits |= u32::from(src[off]) << (8 * byte);
        }
        let off = b.byte_offset_usize(&coord[..rank]);
        D::write(dst, off, cvt::<S, D>(bits));
        // Row-major odometer, last axis fastest.
        let mut ax = rank;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            coord[ax] += 1;
            if coord[ax] < ext[ax] {
                break;
            }
            coord[ax] = 0;
        }
    }
}

/// CastUntess: tiled input to contiguous/strided output (padding never read).
pub(crate) fn cast_untess(
    is: &TensorSpec,
    g: &Geometry,
    src: &[u8],
    to: DType,
    b: &StridedGeom,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    dispatch_float_pair!(is.dtype, to, untess_impl(&is.dims, g, src, b, dst))
}

/// Vector packing of whole F32 -> BF16 tiles (channel count a multiple of 16).
mod simd {
    use super::TileDims;
    use crate::tensor::convert::ConvertPath;

    /// True when this CPU has the AVX-512 BF16 path.
    pub fn available() -> bool {
        ConvertPath::best() == ConvertPath::Avx512Bf16
    }

    /// Packs every full tile (all of its pixels and channels logical) of outer index `o`:
    /// tile `(dt, ht, wt, ct)` with `dt < full[0]`, ... `ct < full[3]` reads
    /// `src[base + d*s[0] + h*s[1] + w*s[2] + 4*c]` and is written at tile number
    /// `((o*nC + ct)*nD + dt)*nH + ht)*nW + wt` of `dst` (pixels D/H/W order, each `tc`
    /// low bytes then `tc` high bytes; alignment gap zero). Returns false, writing
    /// nothing, when the bounds do not hold or the CPU lacks the instructions.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn interior_f32_bf16<T: TileDims>(
        t: T,
        src: &[u8],
        base: usize,
        s: [usize; 3],
        o: usize,
        nt: [usize; 4],
        full: [usize; 4],
        tile_bytes: usize,
        tile_raw: usize,
        dst: &mut [u8],
    ) -> bool {
        let (td, th, tw, tc) = (t.td(), t.th(), t.tw(), t.tc());
        if tc % 16 != 0 || !available() {
            return false;
        }
        if full.contains(&0) {
            return true; // no full tile: nothing to do, the scalar loop packs the rest
        }
        // Largest input byte read and largest tile written, checked.
        let last_in = (full[0] * td - 1)
            .checked_mul(s[0])
            .and_then(|a| {
                (full[1] * th - 1)
                    .checked_mul(s[1])
                    .and_then(|b| a.checked_add(b))
            })
            .and_then(|a| {
                (full[2] * tw - 1)
                    .checked_mul(s[2])
                    .and_then(|b| a.checked_add(b))
            })
            .and_then(|a| a.checked_add(base))
            .and_then(|a| a.checked_add(full[3] * tc * 4));
        let last_tile = (((o * nt[3] + full[3] - 1) * nt[0] + full[0] - 1) * nt[1] + full[1] - 1)
            * nt[2]
            + full[2]
            - 1;
        let last_out = (last_tile + 1).checked_mul(tile_bytes);
        // Every pixel's 2*tc bytes at its layout offset stay inside the tile body.
        let ps = t.pixel_strides();
        let last_pixel = (td - 1) * ps[0] + (th - 1) * ps[1] + (tw - 1) * ps[2];
        let raw_ok = td * th * tw * tc * 2 == tile_raw
            && (last_pixel + tc) * 2 <= tile_raw
            && tile_raw <= tile_bytes;
        if last_in.is_none_or(|l| l > src.len())
            || last_out.is_none_or(|l| l > dst.len())
            || !raw_ok
        {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available()` detected AVX-512 F/BW/VL/BF16 (the callee's features).
        // Reads: pixel (d, h, w) of channel tile ct reads 4*tc bytes at
        // base + d*s0 + h*s1 + w*s2 + 4*tc*ct, all below `last_in <= src.len()` (the
        // largest d, h, w, ct are full[k]*t - 1, checked arithmetic above). Writes: tile
        // numbers grow with each of o, ct, dt, ht, wt, so every written tile ends at or
        // before `last_out <= dst.len()`; inside a tile each pixel writes 2*tc bytes at its
        // layout offset, which ends within `tile_raw` (`raw_ok`), and the gap fill covers
        // [tile_raw, tile_bytes). `src` and `dst` are distinct borrows: no overlap.
        unsafe {
            x86::interior(
                t,
                src.as_ptr(),
                base,
                s,
                o,
                nt,
                full,
                tile_bytes,
                tile_raw,
                dst.as_mut_ptr(),
            );
        }
        cfg!(target_arch = "x86_64")
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::TileDims;
        use std::arch::x86_64::*;

        /// # Safety
        /// AVX-512 F/BW/VL/BF16 available; `src` and `dst` valid for the reads and writes
        /// described in `interior_f32_bf16` (which checks them), and not overlapping.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn interior<T: TileDims>(
            t: T,
            src: *const u8,
            base: usize,
            s: [usize; 3],
            o: usize,
            nt: [usize; 4],
            full: [usize; 4],
            tile_bytes: usize,
            tile_raw: usize,
            dst: *mut u8,
        ) {
            let (td, th, tw, tc) = (t.td(), t.th(), t.tw(), t.tc());
            let ps = t.pixel_strides();
            // Tile numbers of consecutive channel tiles are this far apart.
            let ct_step = nt[0] * nt[1] * nt[2];
            for dt in 0..full[0] {
                for ht in 0..full[1] {
                    for wt in 0..full[2] {
                        let idx0 = (((o * nt[3]) * nt[0] + dt) * nt[1] + ht) * nt[2] + wt;
                        let tb = base + dt * td * s[0] + ht * th * s[1] + wt * tw * s[2];
                        // Pixel by pixel, all full channel tiles at once: the input is read
                        // in order along each pixel's channels.
                        for d in 0..td {
                            for h in 0..th {
                                for w in 0..tw {
                                    // In-tile byte offset of the pixel (2 bytes per slot).
                                    let p = (d * ps[0] + h * ps[1] + w * ps[2]) * 2;
                                    let pb = tb + d * s[0] + h * s[1] + w * s[2];
                                    for ct in 0..full[3] {
                                        // SAFETY: this pixel's 4*tc input bytes and 2*tc
                                        // output bytes are in bounds per this fn's contract
                                        // (checked by `interior_f32_bf16`); features enabled.
                                        unsafe {
                                            let out =
                                                dst.add((idx0 + ct * ct_step) * tile_bytes + p);
                                            pixel(tc, src.add(pb + ct * tc * 4), out);
                                        }
                                    }
                                }
                            }
                        }
                        if tile_bytes > tile_raw {
                            for ct in 0..full[3] {
                                // SAFETY: [tile_raw, tile_bytes) of this tile lies
                                // inside the tile, which ends before `last_out`
                                // (contract, checked by `interior_f32_bf16`).
                                unsafe {
                                    let out = dst.add((idx0 + ct * ct_step) * tile_bytes);
                                    std::ptr::write_bytes(
                                        out.add(tile_raw),
                                        0,
                                        tile_bytes - tile_raw,
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Converts the `tc` channels (a multiple of 16) of one pixel at `src` and stores
        /// their low-byte plane at `dst` and high-byte plane at `dst + tc`.
        ///
        /// # Safety
        /// AVX-512 F/BW/VL/BF16 available; `4 * tc` readable bytes at `src`, `2 * tc`
        /// writable bytes at `dst`.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn pixel(tc: usize, src: *const u8, dst: *mut u8) {
            let abs = _mm512_set1_epi32(0x7FFF_FFFF);
            let one = _mm512_set1_epi32(1);
            let max_sub = _mm512_set1_epi32(0x007F_FFFF);
            let bias = _mm512_set1_epi32(0x7FFF);
            let planes = _mm256_setr_epi8(
                0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1,
                3, 5, 7, 9, 11, 13, 15,
            );
            for k in 0..tc / 16 {
                // SAFETY: features enabled for this fn and available per its contract;
                // k < tc / 16, so 64 bytes at src + 64k, and 16 bytes at dst + 16k and at
                // dst + tc + 16k (32 bytes at dst when tc == 16), are in bounds per the
                // caller (4*tc readable, 2*tc writable; unaligned accesses). The transmute
                // reinterprets 16 bf16 lanes as an integer vector of the same 32 bytes.
                unsafe {
                    let x = _mm512_loadu_si512(src.add(64 * k).cast());
                    let hw = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
                    let mut r: __m256i = std::mem::transmute::<__m256bh, __m256i>(hw);
                    // vcvtneps2bf16 flushes subnormal inputs: recompute those lanes.
                    let a = _mm512_and_si512(x, abs);
                    let sub = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), max_sub);
                    if sub != 0 {
                        let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), one);
                        let t = _mm512_add_epi32(x, _mm512_add_epi32(bias, lsb));
                        let fix = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(t));
                        r = _mm256_mask_blend_epi16(sub, r, fix);
                    }
                    // Bytes [l0 h0 l1 h1 ...] -> [l0..l15 | h0..h15].
                    let v = _mm256_shuffle_epi8(r, planes);
                    let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
                    if tc == 16 {
                        _mm256_storeu_si256(dst.cast(), v);
                    } else {
                        _mm_storeu_si128(dst.add(16 * k).cast(), _mm256_castsi256_si128(v));
                        _mm_storeu_si128(
                            dst.add(tc + 16 * k).cast(),
                            _mm256_extracti128_si256::<1>(v),
                        );
                    }
                }
            }
        }
    }
}
