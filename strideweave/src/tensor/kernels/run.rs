//! The one conversion routine every kernel uses: a row of pixels, each a run of
//! channels, read in one memory format and written in another, converting every element
//! from `S` to `D` (bit-exact with `half`, see [`convert`](crate::tensor::convert)).
//!
//! Cast (a run of one pixel), CastTess (a tile row: pixels of `valid` channels written
//! into `slots` channel slots, the rest zero) and CastUntess (the same, read back) all
//! reduce to [`convert_row`]. Each instruction-set path converts 16-lane blocks: AVX-512
//! with masked loads and stores for the partial block at a pixel's end, AVX2/F16C with
//! 8-lane blocks and a narrow tail through a stack buffer, and a portable scalar loop.

use crate::tensor::convert::{cvt, ConvertPath, Elem};

/// Where the elements of one pixel lie, relative to the pixel's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fmt {
    /// Little-endian elements `stride` bytes apart.
    Elements(usize),
    /// BF16 byte planes: the low byte of element `k` at `k`, its high byte at `plane + k`.
    Planes(usize),
}

/// One side of a row: bytes between consecutive pixels and the format inside a pixel.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side {
    pub pixel: usize,
    pub fmt: Fmt,
}

impl Side {
    /// A single run of elements `stride` bytes apart.
    pub fn run(stride: usize) -> Side {
        Side {
            pixel: 0,
            fmt: Fmt::Elements(stride),
        }
    }
}

/// The shape of a row: `npix` pixels; each reads `valid` elements and writes `slots`
/// (`slots >= valid`; slots past `valid` are written as zero bits).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Row {
    pub npix: usize,
    pub valid: usize,
    pub slots: usize,
}

/// Up to two outer loops around a row: `(count, source step, destination step)` in bytes,
/// outermost first. A tile is one grid: its pixel rows along D and H.
pub(crate) type Grid = [(usize, usize, usize); 2];

/// The grid of a single row.
pub(crate) const ONE_ROW: Grid = [(1, 0, 0), (1, 0, 0)];

/// Bytes a pixel of `n >= 1` elements of width `w` spans in `fmt`; `None` on overflow or
/// when byte planes would overlap (`n > plane`) or the width is not 2.
fn pixel_extent(fmt: Fmt, n: usize, w: usize) -> Option<usize> {
    match fmt {
        Fmt::Elements(st) => (n - 1).checked_mul(st)?.checked_add(w),
        Fmt::Planes(plane) if w == 2 && n <= plane => plane.checked_add(n),
        Fmt::Planes(_) => None,
    }
}

/// Bytes a whole grid of rows spans on one side (`dst`: pick the destination steps).
fn grid_extent(
    grid: &Grid,
    dst: bool,
    side: Side,
    npix: usize,
    n: usize,
    w: usize,
) -> Option<usize> {
    let mut end = (npix - 1)
        .checked_mul(side.pixel)?
        .checked_add(pixel_extent(side.fmt, n, w)?)?;
    for &(count, ss, ds) in grid {
        end = end.checked_add((count - 1).checked_mul(if dst { ds } else { ss })?)?;
    }
    Some(end)
}

/// Converts one row (see [`Row`]) from `src` to `dst` with `path`.
pub(crate) fn convert_row<S: Elem, D: Elem>(
    path: ConvertPath,
    src: &[u8],
    s: Side,
    dst: &mut [u8],
    d: Side,
    row: Row,
) {
    convert_grid::<S, D>(path, src, s, dst, d, row, ONE_ROW);
}

/// Converts a grid of rows (see [`Grid`], [`Row`]) from `src` to `dst` with `path`.
///
/// Callers pass offsets that admission and the placement maps prove in bounds; a row that
/// would reach outside either slice is a bug in the caller and panics here (before any
/// access), never undefined behaviour. `path` must be available (callers use
/// [`ConvertPath::best`] or a path they checked).
pub(crate) fn convert_grid<S: Elem, D: Elem>(
    path: ConvertPath,
    src: &[u8],
    s: Side,
    dst: &mut [u8],
    d: Side,
    mut row: Row,
    grid: Grid,
) {
    if row.npix == 0 || row.slots == 0 || grid.iter().any(|g| g.0 == 0) {
        return;
    }
    assert!(row.valid <= row.slots, "convert_row: more valid than slots");
    let dst_end = grid_extent(&grid, true, d, row.npix, row.slots, D::W);
    assert!(
        dst_end.is_some_and(|e| e <= dst.len()),
        "convert_row: destination row outside its buffer"
    );
    if row.valid > 0 {
        let src_end = grid_extent(&grid, false, s, row.npix, row.valid, S::W);
        assert!(
            src_end.is_some_and(|e| e <= src.len()),
            "convert_row: source row outside its buffer"
        );
    }
    // Pixels that follow each other densely on both sides are one long run.
    if row.valid == row.slots
        && s.fmt == Fmt::Elements(S::W)
        && d.fmt == Fmt::Elements(D::W)
        && s.pixel == row.valid * S::W
        && d.pixel == row.slots * D::W
    {
        row = Row {
            npix: 1,
            valid: row.npix * row.valid,
            slots: row.npix * row.slots,
        };
    }
    if S::DTYPE == D::DTYPE
        && grid == ONE_ROW
        && row.npix == 1
        && row.valid == row.slots
        && s.fmt == Fmt::Elements(S::W)
        && d.fmt == Fmt::Elements(D::W)
    {
        let n = row.valid * S::W;
        dst[..n].copy_from_slice(&src[..n]);
        return;
    }
    let path = if path.is_available() {
        path
    } else {
        ConvertPath::Portable
    };
    match path {
        ConvertPath::Portable => portable::grid::<S, D>(src, s, dst, d, row, grid),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_available` detected AVX2 + F16C (the callee's features); the asserts
        // above proved every pixel's source elements (for `valid > 0`) and destination
        // slots lie inside `src` and `dst`, which are distinct borrows (no overlap).
        ConvertPath::Avx2F16c => unsafe {
            x86::avx2::grid::<S, D>(src.as_ptr(), s, dst.as_mut_ptr(), d, row, grid)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_available` detected AVX-512 F/BW/VL/BF16 (the callee's features);
        // bounds and disjointness as above.
        ConvertPath::Avx512Bf16 => unsafe {
            x86::avx512::grid::<S, D>(src.as_ptr(), s, dst.as_mut_ptr(), d, row, grid)
        },
        #[cfg(not(target_arch = "x86_64"))]
        _ => portable::grid::<S, D>(src, s, dst, d, row, grid),
    }
}

/// The portable path, and the reference every vector path is tested against.
mod portable {
    use super::*;

    /// Element `k` of the pixel at `base`.
    #[inline(always)]
    pub(super) fn read<S: Elem>(src: &[u8], base: usize, fmt: Fmt, k: usize) -> u32 {
        match fmt {
            Fmt::Elements(st) => S::read(src, base + k * st),
            Fmt::Planes(p) => u32::from(src[base + k]) | (u32::from(src[base + p + k]) << 8),
        }
    }

    /// Writes element `k` of the pixel at `base`.
    #[inline(always)]
    pub(super) fn write<D: Elem>(dst: &mut [u8], base: usize, fmt: Fmt, k: usize, bits: u32) {
        match fmt {
            Fmt::Elements(st) => D::write(dst, base + k * st, bits),
            Fmt::Planes(p) => {
                dst[base + k] = bits as u8;
                dst[base + p + k] = (bits >> 8) as u8;
            }
        }
    }

    pub(super) fn grid<S: Elem, D: Elem>(
        src: &[u8],
        s: Side,
        dst: &mut [u8],
        d: Side,
        r: Row,
        g: Grid,
    ) {
        for i in 0..g[0].0 {
            for j in 0..g[1].0 {
                let so = i * g[0].1 + j * g[1].1;
                let dof = i * g[0].2 + j * g[1].2;
                row::<S, D>(&src[so..], s, &mut dst[dof..], d, r);
            }
        }
    }

    fn row<S: Elem, D: Elem>(src: &[u8], s: Side, dst: &mut [u8], d: Side, r: Row) {
        for p in 0..r.npix {
            let (sb, db) = (p * s.pixel, p * d.pixel);
            for k in 0..r.slots {
                let bits = if k < r.valid {
                    cvt::<S, D>(read::<S>(src, sb, s.fmt, k))
                } else {
                    0
                };
                write::<D>(dst, db, d.fmt, k, bits);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Elem, Fmt, Grid, Row, Side};
    use crate::tensor::dtype::DType;

    /// Reads element `k` of the pixel at `p` (scalar; for strided formats and tails).
    ///
    /// # Safety
    /// The element's bytes are readable.
    #[inline(always)]
    unsafe fn read<S: Elem>(p: *const u8, fmt: Fmt, k: usize) -> u32 {
        // SAFETY: per the contract the element's bytes are readable; unaligned reads.
        unsafe {
            match fmt {
                Fmt::Elements(st) if S::W == 4 => p.add(k * st).cast::<u32>().read_unaligned(),
                Fmt::Elements(st) => u32::from(p.add(k * st).cast::<u16>().read_unaligned()),
                Fmt::Planes(pl) => {
                    u32::from(p.add(k).read()) | (u32::from(p.add(pl + k).read()) << 8)
                }
            }
        }
    }

    /// Writes element `k` of the pixel at `p` (scalar).
    ///
    /// # Safety
    /// The element's bytes are writable.
    #[inline(always)]
    unsafe fn write<D: Elem>(p: *mut u8, fmt: Fmt, k: usize, bits: u32) {
        // SAFETY: per the contract the element's bytes are writable; unaligned writes.
        unsafe {
            match fmt {
                Fmt::Elements(st) if D::W == 4 => p.add(k * st).cast::<u32>().write_unaligned(bits),
                Fmt::Elements(st) => p.add(k * st).cast::<u16>().write_unaligned(bits as u16),
                Fmt::Planes(pl) => {
                    p.add(k).write(bits as u8);
                    p.add(pl + k).write((bits >> 8) as u8);
                }
            }
        }
    }

    pub(super) mod avx512 {
        use super::*;
        use std::arch::x86_64::*;

        /// # Safety
        /// AVX-512 F/BW/VL/BF16 available; in every row of the grid, every pixel's `valid`
        /// source elements readable and `slots` destination slots writable, as laid out by
        /// `s`, `d`; no overlap between source and destination.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        pub unsafe fn grid<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            for i in 0..g[0].0 {
                for j in 0..g[1].0 {
                    // SAFETY: every row of the grid lies inside both buffers (contract).
                    unsafe {
                        row::<S, D>(
                            src.add(i * g[0].1 + j * g[1].1),
                            s,
                            dst.add(i * g[0].2 + j * g[1].2),
                            d,
                            r,
                        )
                    };
                }
            }
        }

        /// One row of the grid.
        ///
        /// # Safety
        /// As for `grid`, for this row.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn row<S: Elem, D: Elem>(src: *const u8, s: Side, dst: *mut u8, d: Side, r: Row) {
            for p in 0..r.npix {
                // SAFETY: pixel p starts inside both rows (contract).
                let (sp, dp) = unsafe { (src.add(p * s.pixel), dst.add(p * d.pixel)) };
                let mut k = 0;
                while k < r.slots {
                    let nv = r.valid.saturating_sub(k).min(16);
                    let ns = (r.slots - k).min(16);
                    // SAFETY: lanes below nv read elements k.. of this pixel (< valid) and
                    // lanes below ns write slots k.. (< slots); masked-off lanes are not
                    // accessed (AVX-512 masked accesses do not fault); features enabled.
                    unsafe { block::<S, D>(sp, s.fmt, dp, d.fmt, k, nv, ns) };
                    k += 16;
                }
            }
        }

        #[inline(always)]
        fn mask(n: usize) -> __mmask16 {
            ((1u32 << n) - 1) as __mmask16
        }

        /// Converts elements `k..k+nv` and writes slots `k..k+ns` (zero past `nv`).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn block<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            dp: *mut u8,
            df: Fmt,
            k: usize,
            nv: usize,
            ns: usize,
        ) {
            let (vm, sm) = (mask(nv), mask(ns));
            // SAFETY: as in `row`: only unmasked lanes touch memory, all in bounds.
            unsafe {
                match (S::W, D::W) {
                    (4, 4) => store32::<D>(dp, df, k, ns, sm, load32::<S>(sp, sf, k, nv, vm)),
                    (4, _) => store16::<D>(
                        dp,
                        df,
                        k,
                        ns,
                        sm,
                        narrow(D::DTYPE, load32::<S>(sp, sf, k, nv, vm)),
                    ),
                    (_, 4) => store32::<D>(
                        dp,
                        df,
                        k,
                        ns,
                        sm,
                        widen(S::DTYPE, load16::<S>(sp, sf, k, nv, vm)),
                    ),
                    _ if S::DTYPE == D::DTYPE => {
                        store16::<D>(dp, df, k, ns, sm, load16::<S>(sp, sf, k, nv, vm))
                    }
                    _ => store16::<D>(
                        dp,
                        df,
                        k,
                        ns,
                        sm,
                        narrow(D::DTYPE, widen(S::DTYPE, load16::<S>(sp, sf, k, nv, vm))),
                    ),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn load32<S: Elem>(
            p: *const u8,
            f: Fmt,
            k: usize,
            nv: usize,
            m: __mmask16,
        ) -> __m512i {
            // SAFETY: unmasked lanes (< nv) are readable elements (caller).
            unsafe {
                match f {
                    Fmt::Elements(4) => _mm512_maskz_loadu_epi32(m, p.add(4 * k).cast()),
                    _ => {
                        let mut buf = [0u32; 16];
                        for (l, b) in buf.iter_mut().enumerate().take(nv) {
                            *b = read::<S>(p, f, k + l);
                        }
                        _mm512_loadu_si512(buf.as_ptr().cast())
                    }
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn load16<S: Elem>(
            p: *const u8,
            f: Fmt,
            k: usize,
            nv: usize,
            m: __mmask16,
        ) -> __m256i {
            // SAFETY: unmasked lanes (< nv) are readable elements (caller).
            unsafe {
                match f {
                    Fmt::Elements(2) => _mm256_maskz_loadu_epi16(m, p.add(2 * k).cast()),
                    Fmt::Planes(pl) => {
                        let lo = _mm_maskz_loadu_epi8(m, p.add(k).cast());
                        let hi = _mm_maskz_loadu_epi8(m, p.add(pl + k).cast());
                        _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi))
                    }
                    Fmt::Elements(_) => {
                        let mut buf = [0u16; 16];
                        for (l, b) in buf.iter_mut().enumerate().take(nv) {
                            *b = read::<S>(p, f, k + l) as u16;
                        }
                        _mm256_loadu_si256(buf.as_ptr().cast())
                    }
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn store32<D: Elem>(
            p: *mut u8,
            f: Fmt,
            k: usize,
            ns: usize,
            m: __mmask16,
            v: __m512i,
        ) {
            // SAFETY: unmasked lanes (< ns) are writable slots (caller).
            unsafe {
                match f {
                    Fmt::Elements(4) => _mm512_mask_storeu_epi32(p.add(4 * k).cast(), m, v),
                    _ => {
                        let mut buf = [0u32; 16];
                        _mm512_storeu_si512(buf.as_mut_ptr().cast(), v);
                        for (l, &b) in buf.iter().enumerate().take(ns) {
                            write::<D>(p, f, k + l, b);
                        }
                    }
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        unsafe fn store16<D: Elem>(
            p: *mut u8,
            f: Fmt,
            k: usize,
            ns: usize,
            m: __mmask16,
            v: __m256i,
        ) {
            // SAFETY: unmasked lanes (< ns) are writable slots (caller).
            unsafe {
                match f {
                    Fmt::Elements(2) => _mm256_mask_storeu_epi16(p.add(2 * k).cast(), m, v),
                    Fmt::Planes(pl) => {
                        // Bytes [l0 h0 l1 h1 ...] -> [l0..l15 | h0..h15].
                        let planes = _mm256_setr_epi8(
                            0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8,
                            10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15,
                        );
                        let v = _mm256_shuffle_epi8(v, planes);
                        let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(v);
                        _mm_mask_storeu_epi8(p.add(k).cast(), m, _mm256_castsi256_si128(v));
                        _mm_mask_storeu_epi8(
                            p.add(pl + k).cast(),
                            m,
                            _mm256_extracti128_si256::<1>(v),
                        );
                    }
                    Fmt::Elements(_) => {
                        let mut buf = [0u16; 16];
                        _mm256_storeu_si256(buf.as_mut_ptr().cast(), v);
                        for (l, &b) in buf.iter().enumerate().take(ns) {
                            write::<D>(p, f, k + l, u32::from(b));
                        }
                    }
                }
            }
        }

        /// F16 or BF16 lanes to F32 bits, exactly (`half`'s rule: a NaN gets its quiet bit).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        fn widen(from: DType, v: __m256i) -> __m512i {
            if from == DType::F16 {
                _mm512_castps_si512(_mm512_cvtph_ps(v))
            } else {
                let x = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(v));
                let abs = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
                let nan = _mm512_cmpgt_epu32_mask(abs, _mm512_set1_epi32(0x7F80_0000));
                _mm512_mask_or_epi32(x, nan, x, _mm512_set1_epi32(0x0040_0000))
            }
        }

        /// F32 bits to F16 or BF16 lanes, round to nearest even, subnormals kept.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
        fn narrow(to: DType, x: __m512i) -> __m256i {
            if to == DType::F16 {
                return _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(x));
            }
            let hw = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
            // SAFETY: reinterprets 16 bf16 lanes as an integer vector of the same 32 bytes;
            // every bit pattern is valid for both.
            let mut r: __m256i = unsafe { std::mem::transmute::<__m256bh, __m256i>(hw) };
            // vcvtneps2bf16 treats denormal inputs as zero: recompute lanes holding a
            // nonzero subnormal (|x| - 1 < 0x007FFFFF unsigned) with integer RNE.
            let a = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
            let one = _mm512_set1_epi32(1);
            let sub =
                _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), _mm512_set1_epi32(0x007F_FFFF));
            if sub != 0 {
                let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), one);
                let t = _mm512_add_epi32(x, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF), lsb));
                let fix = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(t));
                r = _mm256_mask_blend_epi16(sub, r, fix);
            }
            r
        }
    }

    pub(super) mod avx2 {
        use super::*;
        use std::arch::x86_64::*;

        /// # Safety
        /// AVX2 and F16C available; memory as for the AVX-512 `grid`.
        #[target_feature(enable = "avx2,f16c")]
        pub unsafe fn grid<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            for i in 0..g[0].0 {
                for j in 0..g[1].0 {
                    // SAFETY: every row of the grid lies inside both buffers (contract).
                    unsafe {
                        row::<S, D>(
                            src.add(i * g[0].1 + j * g[1].1),
                            s,
                            dst.add(i * g[0].2 + j * g[1].2),
                            d,
                            r,
                        )
                    };
                }
            }
        }

        /// One row of the grid.
        ///
        /// # Safety
        /// As for `grid`, for this row.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn row<S: Elem, D: Elem>(src: *const u8, s: Side, dst: *mut u8, d: Side, r: Row) {
            // Full 8-lane blocks convert straight between the formats below; partial
            // blocks and other strides go through two stack buffers.
            let s_direct = s.fmt == Fmt::Elements(S::W) || matches!(s.fmt, Fmt::Planes(_));
            let d_direct = d.fmt == Fmt::Elements(D::W) || matches!(d.fmt, Fmt::Planes(_));
            for p in 0..r.npix {
                // SAFETY: pixel p starts inside both rows (contract).
                let (sp, dp) = unsafe { (src.add(p * s.pixel), dst.add(p * d.pixel)) };
                let mut k = 0;
                while k < r.slots {
                    let nv = r.valid.saturating_sub(k).min(8);
                    let ns = (r.slots - k).min(8);
                    // SAFETY: elements k..k+nv are readable and slots k..k+ns writable
                    // (contract); direct blocks touch exactly 8 of each; the buffers are
                    // 8 elements of 4 bytes, covering both widths.
                    unsafe {
                        if nv == 8 && ns == 8 && s_direct && d_direct {
                            block::<S, D>(sp, s.fmt, k, dp, d.fmt, k);
                        } else {
                            let mut a = [0u32; 8];
                            let mut b = [0u32; 8];
                            let (ap, bp) =
                                (a.as_mut_ptr().cast::<u8>(), b.as_mut_ptr().cast::<u8>());
                            for l in 0..nv {
                                write::<S>(ap, Fmt::Elements(S::W), l, read::<S>(sp, s.fmt, k + l));
                            }
                            block::<S, D>(ap, Fmt::Elements(S::W), 0, bp, Fmt::Elements(D::W), 0);
                            for l in 0..ns {
                                write::<D>(dp, d.fmt, k + l, read::<D>(bp, Fmt::Elements(D::W), l));
                            }
                        }
                    }
                    k += 8;
                }
            }
        }

        /// Converts exactly 8 elements at `k` (formats: contiguous elements or planes).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn block<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            sk: usize,
            dp: *mut u8,
            df: Fmt,
            dk: usize,
        ) {
            // SAFETY: 8 elements at sk and 8 slots at dk are accessible (caller).
            unsafe {
                match (S::W, D::W) {
                    (4, 4) => _mm256_storeu_si256(
                        dp.add(4 * dk).cast(),
                        _mm256_loadu_si256(sp.add(4 * sk).cast()),
                    ),
                    (4, _) => {
                        let x = _mm256_loadu_si256(sp.add(4 * sk).cast());
                        store16(dp, df, dk, narrow(D::DTYPE, x));
                    }
                    (_, 4) => {
                        let x = widen(S::DTYPE, load16(sp, sf, sk));
                        _mm256_storeu_si256(dp.add(4 * dk).cast(), x);
                    }
                    _ if S::DTYPE == D::DTYPE => store16(dp, df, dk, load16(sp, sf, sk)),
                    _ => store16(
                        dp,
                        df,
                        dk,
                        narrow(D::DTYPE, widen(S::DTYPE, load16(sp, sf, sk))),
                    ),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn load16(p: *const u8, f: Fmt, k: usize) -> __m128i {
            // SAFETY: 8 elements at k readable (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        let lo = _mm_loadl_epi64(p.add(k).cast());
                        let hi = _mm_loadl_epi64(p.add(pl + k).cast());
                        _mm_unpacklo_epi8(lo, hi)
                    }
                    Fmt::Elements(_) => _mm_loadu_si128(p.add(2 * k).cast()),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn store16(p: *mut u8, f: Fmt, k: usize, v: __m128i) {
            // SAFETY: 8 slots at k writable (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        let split =
                            _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
                        let v = _mm_shuffle_epi8(v, split);
                        _mm_storel_epi64(p.add(k).cast(), v);
                        _mm_storel_epi64(p.add(pl + k).cast(), _mm_unpackhi_epi64(v, v));
                    }
                    Fmt::Elements(_) => _mm_storeu_si128(p.add(2 * k).cast(), v),
                }
            }
        }

        /// 8 F16 or BF16 lanes to F32 bits, exactly (a BF16 NaN gets its quiet bit).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn widen(from: DType, v: __m128i) -> __m256i {
            if from == DType::F16 {
                return _mm256_castps_si256(_mm256_cvtph_ps(v));
            }
            let x = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(v));
            let abs = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF_FFFF));
            let nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7F80_0000));
            _mm256_or_si256(x, _mm256_and_si256(nan, _mm256_set1_epi32(0x0040_0000)))
        }

        /// 8 F32 lanes to F16 (F16C) or BF16 (integer round to nearest even) lanes.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn narrow(to: DType, x: __m256i) -> __m128i {
            if to == DType::F16 {
                return _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_castsi256_ps(x));
            }
            let one = _mm256_set1_epi32(1);
            let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(x), one);
            let bias = _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb);
            let r = _mm256_srli_epi32::<16>(_mm256_add_epi32(x, bias));
            let abs = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFF_FFFF));
            let nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7F80_0000));
            let q = _mm256_or_si256(_mm256_srli_epi32::<16>(x), _mm256_set1_epi32(0x40));
            let r = _mm256_blendv_epi8(r, q, nan);
            _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
        }
    }
}
