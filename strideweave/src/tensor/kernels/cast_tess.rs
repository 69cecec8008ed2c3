//! CastTess: Cast into an MlaTiled or MlaCBlocked placement, writing every byte of the
//! span (padding and alignment gaps as zeros); and its inverse CastUntess.
//!
//! The tile packing loop is generic over [`TileDims`]: a [`TileShape`] type gives a
//! monomorphized loop whose tile extents are compile-time constants; [`RuntimeTile`]
//! runs the very same loop with run-time extents (the fallback), producing identical bytes.

use std::marker::PhantomData;

use crate::tensor::convert::{cvt, dispatch_float_pair, Elem};
use crate::tensor::dims::{Dims, MAX_RANK};
use crate::tensor::dtype::DType;
use crate::tensor::error::{Rule, TensorError};
use crate::tensor::placement::{CBlockedGeom, Geometry, StridedGeom, TiledGeom, CBLOCK_LANES};
use crate::tensor::plan::TileDispatch;
use crate::tensor::spec::TensorSpec;

/// A tile shape known at compile time: extents along D, H, W, C.
///
/// For MlaCBlocked the shape is `(1, TH, TW, 16)`.
///
/// ```
/// use strideweave::tensor::{TileShape, Tile1x4x4x16};
/// assert_eq!(<Tile1x4x4x16 as TileShape>::TC, 16);
/// ```
pub trait TileShape: 'static {
    /// Depth.
    const TD: usize;
    /// Height.
    const TH: usize;
    /// Width.
    const TW: usize;
    /// Channels.
    const TC: usize;
}

/// Tile extents as seen by the packing loop (compile-time or run-time).
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
}

/// Compile-time tile extents of the [`TileShape`] `T`.
///
/// ```
/// use strideweave::tensor::{StaticTile, Tile1x1x1x32, TileDims};
/// assert_eq!(StaticTile::<Tile1x1x1x32>::new().tc(), 32);
/// ```
#[derive(Debug)]
pub struct StaticTile<T>(PhantomData<T>);

impl<T> StaticTile<T> {
    /// The (zero-sized) value.
    pub const fn new() -> Self {
        StaticTile(PhantomData)
    }
}

impl<T> Default for StaticTile<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for StaticTile<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for StaticTile<T> {}

impl<T: TileShape> TileDims for StaticTile<T> {
    const CHANNEL_VECTORS: bool = T::TC % 16 == 0;
    #[inline(always)]
    fn td(self) -> usize {
        T::TD
    }
    #[inline(always)]
    fn th(self) -> usize {
        T::TH
    }
    #[inline(always)]
    fn tw(self) -> usize {
        T::TW
    }
    #[inline(always)]
    fn tc(self) -> usize {
        T::TC
    }
}

/// Run-time tile extents (the fallback loop).
///
/// ```
/// use strideweave::tensor::{RuntimeTile, TileDims};
/// assert_eq!(RuntimeTile { dhwc: [2, 3, 4, 5] }.tw(), 4);
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

macro_rules! static_tiles {
    ($($name:ident = ($d:literal, $h:literal, $w:literal, $c:literal)),* $(,)?) => {
        $(
            #[doc = concat!("The static tile shape D=", $d, " H=", $h, " W=", $w, " C=", $c, ".")]
            #[derive(Debug, Clone, Copy)]
            pub struct $name;
            impl TileShape for $name {
                const TD: usize = $d;
                const TH: usize = $h;
                const TW: usize = $w;
                const TC: usize = $c;
            }
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

/// Checks that the static shape `T` is the tile of the tiled geometry `g`.
pub(crate) fn check_static<T: TileShape>(g: &Geometry) -> Result<(), TensorError> {
    let want = [T::TD, T::TH, T::TW, T::TC].map(|x| x as u64);
    match tile_of(g) {
        Some(t) if t == want => Ok(()),
        t => Err(TensorError::new(
            Rule::TileMismatch,
            format!("static tile {want:?} does not match the placement's tile {t:?}"),
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
                        let mut pixels = body.chunks_exact_mut(pix_bytes);
                        for dd in 0..td {
                            let d = dt * td + dd;
                            for hh in 0..th {
                                let h = ht * th + hh;
                                let row_ok = d < ext[0] && h < ext[1];
                                let row_base = off_o + d * s[0] + h * s[1] + c0 * s[3];
                                for ww in 0..tw {
                                    let w = wt * tw + ww;
                                    let Some(pix) = pixels.next() else { return };
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
                let mut groups = body.chunks_exact_mut(L * D::W);
                for cb in 0..g.n_cb as usize {
                    let c0 = cb * L;
                    let cvalid = L.min(c_ext - c0);
                    for hh in 0..th {
                        let h = ht * th + hh;
                        for ww in 0..tw {
                            let w = wt * tw + ww;
                            let Some(pix) = groups.next() else { return };
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

/// Runs CastTess with the static tile `T` (callers checked `check_static::<T>`).
pub(crate) fn run_static<T: TileShape>(
    is: &TensorSpec,
    a: &StridedGeom,
    src: &[u8],
    os: &TensorSpec,
    g: &Geometry,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    let t = StaticTile::<T>(PhantomData);
    dispatch_float_pair!(
        is.dtype,
        os.dtype,
        pack::<StaticTile<T>>(t, g, &is.dims, a, src, dst)
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
        let raw_ok = td * th * tw * tc * 2 == tile_raw && tile_raw <= tile_bytes;
        if last_in.is_none_or(|l| l > src.len())
            || last_out.is_none_or(|l| l > dst.len())
            || !raw_ok
        {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `available()` checked AVX-512 F/BW/VL/BF16; every read lies below
        // `last_in <= src.len()` and every write below `last_out <= dst.len()`
        // (tile numbers grow with each of o, ct, dt, ht, wt; checked above).
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
        /// AVX-512 F/BW/VL/BF16 available; the reads and writes described in
        /// `tile_f32_bf16` are in bounds.
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
            // Tile numbers of consecutive channel tiles are this far apart.
            let ct_step = nt[0] * nt[1] * nt[2];
            for dt in 0..full[0] {
                for ht in 0..full[1] {
                    for wt in 0..full[2] {
                        let idx0 = (((o * nt[3]) * nt[0] + dt) * nt[1] + ht) * nt[2] + wt;
                        let tb = base + dt * td * s[0] + ht * th * s[1] + wt * tw * s[2];
                        // Pixel by pixel, all full channel tiles at once: the input is read
                        // in order along each pixel's channels.
                        let mut p = 0usize;
                        for d in 0..td {
                            for h in 0..th {
                                for w in 0..tw {
                                    let pb = tb + d * s[0] + h * s[1] + w * s[2];
                                    for ct in 0..full[3] {
                                        // SAFETY: in bounds per the caller (`interior_f32_bf16`).
                                        unsafe {
                                            let out =
                                                dst.add((idx0 + ct * ct_step) * tile_bytes + p);
                                            pixel(tc, src.add(pb + ct * tc * 4), out);
                                        }
                                    }
                                    p += 2 * tc;
                                }
                            }
                        }
                        if tile_bytes > tile_raw {
                            for ct in 0..full[3] {
                                // SAFETY: the gap lies inside the checked tile.
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
                // SAFETY: k < tc / 16, so 64 bytes at src + 64k and 16 bytes at dst + 16k and
                // dst + tc + 16k are in bounds per the caller.
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
