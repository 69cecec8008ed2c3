//! Argmax along one axis: ties give the smallest index, NaN (either sign) beats every
//! number and the first NaN wins, -0.0 ties +0.0. Padding of tiled inputs is never read.
//!
//! The output is row-major over `(outer, inner)`: the axes before the reduced one, then
//! the axes after it. Vector loops cover the common layouts, each matching the scalar
//! rule exactly:
//! * the reduced axis is contiguous (`inner` is empty): a row kernel finds the maximum
//!   and whether a NaN occurs in one pass, then the first index equal to it (or the first
//!   NaN) in a second pass over the same, cache-resident, row; rows of 2 to 32 elements
//!   go sixteen at a time, one per lane, through 16x16 transposes;
//! * the inner axes form one dense run, or their innermost axis is dense or 2 to 4
//!   elements apart: a column kernel keeps, per lane (one output element each), the
//!   best value, its index and whether a NaN was seen, and walks the reduced axis row by
//!   row; a strided reduced axis whose neighbouring rows are dense takes the same kernel
//!   across those rows;
//! * the reduced axis is 2 to 4 elements apart: the row kernel's rule in one pass over
//!   masked byte loads and a lane permutation.
//!
//! Anything else uses the scalar loop. A tiled input is first unpacked (CastUntess,
//! which never reads padding) into contiguous scratch, slab by slab where it can (see
//! `Slabs`; each worker its own slabs), else whole.
//! Parts of the output are computed in parallel; each output element is computed the
//! same way whatever the split.

use super::parallel::{for_unit_chunks, units_per_chunk, Exec};
use crate::tensor::convert::{ConvertPath, Elem, EBF16, EF16, EF32};
use crate::tensor::dims::MAX_RANK;
use crate::tensor::dtype::DType;
use crate::tensor::error::{Rule, TensorError};
use crate::tensor::placement::{Geometry, StridedGeom};
use crate::tensor::spec::TensorSpec;

/// Index of the maximum of `n >= 1` values given by `get` (the argmax rules above):
/// the scalar reference every vector loop is tested against.
#[inline(always)]
fn argmax_by(n: usize, mut get: impl FnMut(usize) -> f32) -> usize {
    let mut best = get(0);
    if best.is_nan() {
        return 0;
    }
    let mut bi = 0;
    for k in 1..n {
        let v = get(k);
        if v > best {
            best = v;
            bi = k;
        } else if v.is_nan() {
            return k;
        }
    }
    bi
}

/// The reduction seen from a strided input: outer axes (before `axis`) with their
/// strides, the reduced extent and stride, and the inner axes (after `axis`).
#[derive(Clone, Copy)]
struct Reduction {
    outer_ext: [usize; MAX_RANK],
    outer_stride: [usize; MAX_RANK],
    n_outer_axes: usize,
    n: usize,
    stride: usize,
    inner_ext: [usize; MAX_RANK],
    inner_stride: [usize; MAX_RANK],
    n_inner_axes: usize,
    /// Product of the inner extents: output elements per outer index.
    inner: usize,
    /// True when the inner axes are one dense run of elements (stride = width).
    inner_dense: bool,
}

impl Reduction {
    fn new(g: &StridedGeom, axis: usize, width: usize) -> Reduction {
        let mut r = Reduction {
            outer_ext: [1; MAX_RANK],
            outer_stride: [0; MAX_RANK],
            n_outer_axes: 0,
            n: g.ext[axis] as usize,
            stride: g.stride[axis] as usize,
            inner_ext: [1; MAX_RANK],
            inner_stride: [0; MAX_RANK],
            n_inner_axes: 0,
            inner: 1,
            inner_dense: true,
        };
        for ax in 0..axis {
            r.outer_ext[r.n_outer_axes] = g.ext[ax] as usize;
            r.outer_stride[r.n_outer_axes] = g.stride[ax] as usize;
            r.n_outer_axes += 1;
        }
        // Inner axes, innermost last; dense when each stride is the span of the faster.
        let mut want = width;
        for ax in (axis + 1..g.rank).rev() {
            let (e, s) = (g.ext[ax] as usize, g.stride[ax] as usize);
            if e > 1 && s != want {
                r.inner_dense = false;
            }
            want = want.saturating_mul(e);
        }
        for ax in axis + 1..g.rank {
            r.inner_ext[r.n_inner_axes] = g.ext[ax] as usize;
            r.inner_stride[r.n_inner_axes] = g.stride[ax] as usize;
            r.n_inner_axes += 1;
            r.inner *= g.ext[ax] as usize;
        }
        r
    }

    /// Byte offset of outer index `o` (row-major over the outer axes).
    fn outer_offset(&self, mut o: usize) -> usize {
        let mut off = 0;
        for k in (0..self.n_outer_axes).rev() {
            off += (o % self.outer_ext[k]) * self.outer_stride[k];
            o /= self.outer_ext[k];
        }
        off
    }

    /// Byte offset of inner index `j` (row-major over the inner axes).
    fn inner_offset(&self, mut j: usize) -> usize {
        let mut off = 0;
        for k in (0..self.n_inner_axes).rev() {
            off += (j % self.inner_ext[k]) * self.inner_stride[k];
            j /= self.inner_ext[k];
        }
        off
    }
}

fn write_index(out: &mut [u8], i: usize, out_w: usize, idx: usize) {
    let o = &mut out[i * out_w..(i + 1) * out_w];
    if out_w == 4 {
        o.copy_from_slice(&(idx as i32).to_le_bytes());
    } else {
        o.copy_from_slice(&(idx as i64).to_le_bytes());
    }
}

/// Writes index `best` as output element `j` (`out_w`, 4 or 8, little-endian bytes)
/// through a raw pointer: the vector kernels' output.
///
/// # Safety
/// Bytes `j * out_w..(j + 1) * out_w` of `out` are writable.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn put_index(out: *mut u8, out_w: usize, j: usize, best: usize) {
    // SAFETY: the caller's.
    unsafe {
        if out_w == 4 {
            out.add(4 * j)
                .cast::<i32>()
                .write_unaligned((best as i32).to_le());
        } else {
            out.add(8 * j)
                .cast::<i64>()
                .write_unaligned((best as i64).to_le());
        }
    }
}

/// Output elements `first..first + count` (row-major `(outer, inner)`) into `out`.
#[allow(clippy::too_many_arguments)]
fn argmax_part<S: Elem>(
    path: ConvertPath,
    r: &Reduction,
    src: &[u8],
    out_w: usize,
    first: usize,
    count: usize,
    out: &mut [u8],
) {
    let fits = r.n <= i32::MAX as usize;
    // AVX-512 runs every vector loop; AVX2 the row kernel and the dense column kernel.
    let wide = path == ConvertPath::Avx512Bf16 && path.is_available() && fits;
    let vector = wide || (path == ConvertPath::Avx2F16c && path.is_available() && fits);
    let kernels = if wide { Kernels::Avx512 } else { Kernels::Avx2 };
    if r.inner == 1 {
        // One output per row: the rows' offsets advance as an odometer over the outer
        // axes, so short rows (an argmax over 40 channels) pay no division per row.
        let mut idx = [0usize; MAX_RANK];
        let mut o = first;
        for k in (0..r.n_outer_axes).rev() {
            idx[k] = o % r.outer_ext[k];
            o /= r.outer_ext[k];
        }
        let mut base = r.outer_offset(first);
        let last = r.n_outer_axes.wrapping_sub(1);
        let rs = r.outer_stride.get(last).copied().unwrap_or(0);
        // Contiguous rows of 2 to 32 elements (an argmax over a few channels), sixteen at
        // a time along the innermost outer axis by a transpose (see `TRANSPOSED_ROWS`).
        let transposed =
            wide && r.n_outer_axes > 0 && TRANSPOSED_ROWS.contains(&r.n) && r.stride == S::W;
        // A strided row (the reduced axis is not the dense one) whose neighbours along
        // the innermost outer axis are dense: those rows are the columns of the column
        // kernel (a column-major matrix reduced along its rows): `f32[333,301]` with
        // strides (4, 1332) along axis 1, 89 -> 6 us.
        let across = vector
            && r.n_outer_axes > 0
            && rs == S::W
            && r.stride != S::W
            && !(wide && narrow_row::<S>(r.stride));
        let mut i = 0;
        while i < count {
            // Rows `i..i + step` from `base`: up to the end of the innermost outer axis as
            // columns, sixteen along it by a transpose, a run of contiguous rows, or one.
            let step = if across {
                let cols = (r.outer_ext[last] - idx[last]).min(count - i);
                columns_vector::<S>(kernels, src, base, r.stride, S::W, r.n, cols, out, i, out_w);
                cols
            } else if transposed && idx[last] + 16 <= r.outer_ext[last] && i + 16 <= count {
                let out = &mut out[i * out_w..];
                rows16_transposed_vector::<S>(src, base, rs, r.n, count, out, out_w);
                16
            } else if vector && r.stride == S::W {
                // Contiguous rows `rs` bytes apart, up to the end of the innermost outer
                // axis or of the part (the only row when there is no outer axis), in one
                // call (a call, its checks and the odometer per row cost about a fifth of
                // a 40-element row's time).
                let rows = if r.n_outer_axes > 0 {
                    (r.outer_ext[last] - idx[last]).min(count - i)
                } else {
                    1
                };
                let out = &mut out[i * out_w..];
                rows_vector::<S>(kernels, src, base, rs, r.n, rows, out, out_w);
                rows
            } else {
                let best = if wide && narrow_row::<S>(r.stride) {
                    row_narrow_vector::<S>(src, base, r.stride, r.n)
                } else {
                    argmax_by(r.n, |k| S::to_f32(S::read(src, base + k * r.stride)))
                };
                write_index(out, i, out_w, best);
                1
            };
            i += step;
            // Advance the odometer by `step` rows (16 stay inside the innermost axis).
            if step > 1 {
                idx[last] += step - 1;
                base += (step - 1) * rs;
            }
            for k in (0..r.n_outer_axes).rev() {
                idx[k] += 1;
                base += r.outer_stride[k];
                if idx[k] < r.outer_ext[k] {
                    break;
                }
                base -= r.outer_stride[k] * r.outer_ext[k];
                idx[k] = 0;
            }
        }
        return;
    }
    // The innermost inner axis: its elements `cs` bytes apart (dense or narrow runs of
    // columns when the inner axes as a whole are not one dense run).
    let (last_ext, cs) = (
        r.inner_ext[r.n_inner_axes - 1],
        r.inner_stride[r.n_inner_axes - 1],
    );
    let mut i = 0;
    while i < count {
        let (o, j) = ((first + i) / r.inner, (first + i) % r.inner);
        let base = r.outer_offset(o);
        if vector && r.inner_dense {
            // Columns j.. of this outer index, up to the end of the part or of the row.
            let cols = (r.inner - j).min(count - i);
            let b = base + j * S::W;
            columns_vector::<S>(kernels, src, b, r.stride, S::W, r.n, cols, out, i, out_w);
            i += cols;
        } else if vector && (cs == S::W || (wide && narrow_row::<S>(cs))) {
            // Columns j.. along the innermost inner axis, up to its end or the part's.
            let cols = (last_ext - j % last_ext).min(count - i);
            let b = base + r.inner_offset(j);
            columns_vector::<S>(kernels, src, b, r.stride, cs, r.n, cols, out, i, out_w);
            i += cols;
        } else {
            let b = base + r.inner_offset(j);
            let idx = argmax_by(r.n, |k| S::to_f32(S::read(src, b + k * r.stride)));
            write_index(out, i, out_w, idx);
            i += 1;
        }
    }
}

/// Sixteen contiguous rows of `n` elements from byte `base` (`rs` bytes apart)
/// by a transpose (see `x86::rows16_transposed`), into the first 16 indices of `out`.
/// `rows`: the rows of the loop this call is a step of (past `x86::Ahead`'s size the
/// transpose asks for the lines of the rows after these).
fn rows16_transposed_vector<S: Elem>(
    src: &[u8],
    base: usize,
    rs: usize,
    n: usize,
    rows: usize,
    out: &mut [u8],
    out_w: usize,
) {
    let end = rs
        .checked_mul(15)
        .and_then(|x| x.checked_add(base + n * S::W));
    assert!(end.is_some_and(|e| e <= src.len()) && n >= 1 && 16 * out_w <= out.len());
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller checked AVX-512 F/BW/VL; the 16 rows' n elements lie inside
    // `src` and the 16 indices inside `out` (asserted).
    unsafe {
        let (p, o) = (src.as_ptr().add(base), out.as_mut_ptr());
        if rs == n * S::W && n <= 4 {
            x86::rows16_dense::<S, 4>(p, n, o, out_w)
        } else if rs == n * S::W && n <= DENSE_ROWS {
            x86::rows16_dense::<S, 8>(p, n, o, out_w)
        } else {
            // Masked loads only: the lines of the rows after these are asked for (the
            // dense kernels' plain loads start the hardware prefetchers; asking there
            // measured up to 1.1x slower, `bf16[2000000,3]` along axis 1).
            x86::Ahead::new(rows, rs, n * S::W).rows(p, 16);
            x86::rows16_transposed::<S>(p, rs, n, o, out_w)
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    for i in 0..16 {
        let b = base + i * rs;
        write_index(
            out,
            i,
            out_w,
            argmax_by(n, |k| S::to_f32(S::read(src, b + k * S::W))),
        );
    }
}

/// Rows of at most this many elements stored back to back take `x86::rows16_dense`.
const DENSE_ROWS: usize = 8;

/// Contiguous rows of this many elements are reduced sixteen at a time, one row per
/// lane, by `rows16_transposed_vector`: the row kernel's two passes and horizontal
/// reductions per row cost more. Measured, `[1,57,55,C]` f32 along C, row kernel (or,
/// below 5, gathers, which this replaced) / transpose: C = 2 4.95 / 3.68 us, 5 14.0 /
/// 4.6 us, 8 13.6 / 5.1 us, 16 14.0 / 8.6 us, 24 20.8 / 12.1 us, 32 19.5 / 15.6 us;
/// at 40 both 20.8 us, at 48 and more the row kernel wins (the transposes cost more).
const TRANSPOSED_ROWS: std::ops::RangeInclusive<usize> = 2..=32;

/// Whether a row whose elements are `stride` bytes apart takes `row_narrow_vector`: 2 to
/// 8 elements apart with 16 of them inside two 64-byte vectors (an interleaved view).
fn narrow_row<S: Elem>(stride: usize) -> bool {
    stride > S::W && stride.is_multiple_of(S::W) && 15 * stride + S::W <= 128
}

/// The argmax of the `n` elements `stride` bytes apart from byte `base` (see
/// `narrow_row`; the CPU has AVX-512: checked by the caller).
fn row_narrow_vector<S: Elem>(src: &[u8], base: usize, stride: usize, n: usize) -> usize {
    let end = (n - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add(base + S::W));
    assert!(end.is_some_and(|e| e <= src.len()) && n >= 1 && n <= i32::MAX as usize);
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller checked AVX-512 F/BW/VL; the row's elements lie inside `src`
    // (asserted) and the kernel reads only their bytes; n fits i32 (asserted).
    return unsafe { x86::row_narrow::<S>(src.as_ptr().add(base), stride, n) };
    #[cfg(not(target_arch = "x86_64"))]
    argmax_by(n, |k| S::to_f32(S::read(src, base + k * stride)))
}

/// The vector loops a CPU runs (checked by the caller).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernels {
    Avx512,
    Avx2,
}

/// Row kernel on `rows` runs of `n` contiguous elements, `rs` bytes apart from byte
/// `base`, into the first `rows` indices of `out` (the CPU has `kernels`: checked by the
/// caller).
#[allow(clippy::too_many_arguments)]
fn rows_vector<S: Elem>(
    kernels: Kernels,
    src: &[u8],
    base: usize,
    rs: usize,
    n: usize,
    rows: usize,
    out: &mut [u8],
    out_w: usize,
) {
    if rows == 0 {
        return;
    }
    let end = rows
        .checked_sub(1)
        .and_then(|r| r.checked_mul(rs))
        .and_then(|x| x.checked_add(base)?.checked_add(n.checked_mul(S::W)?));
    assert!(
        end.is_some_and(|e| e <= src.len())
            && (1..=i32::MAX as usize).contains(&n)
            && rows.checked_mul(out_w).is_some_and(|b| b <= out.len())
            && (out_w == 4 || out_w == 8)
    );
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller checked the CPU has `kernels`; every row's n elements lie inside
    // `src` and the `rows` indices inside `out` (asserted).
    unsafe {
        let (p, o) = (src.as_ptr().add(base), out.as_mut_ptr());
        match kernels {
            Kernels::Avx512 => x86::rows::<S>(p, rs, n, rows, o, out_w),
            Kernels::Avx2 => avx2::rows::<S>(p, rs, n, rows, o, out_w),
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    for j in 0..rows {
        let b = base + j * rs;
        let best = argmax_by(n, |k| S::to_f32(S::read(src, b + k * S::W)));
        write_index(out, j, out_w, best);
    }
}

/// Column kernel: output elements `i..i + cols` of `out` are the argmax over `n` rows
/// (`stride` bytes apart) of the columns `cs` bytes apart starting at byte `base` of
/// `src`: dense (`cs` the element width) or 2 to 4 elements apart (see `narrow_row`).
#[allow(clippy::too_many_arguments)]
fn columns_vector<S: Elem>(
    kernels: Kernels,
    src: &[u8],
    base: usize,
    stride: usize,
    cs: usize,
    n: usize,
    cols: usize,
    out: &mut [u8],
    i: usize,
    out_w: usize,
) {
    let last = (n - 1)
        .checked_mul(stride)
        .and_then(|x| x.checked_add((cols - 1).checked_mul(cs)?))
        .and_then(|x| x.checked_add(base + S::W));
    assert!(last.is_some_and(|l| l <= src.len()) && (i + cols) * out_w <= out.len());
    assert!(cs == S::W || (kernels == Kernels::Avx512 && narrow_row::<S>(cs)));
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller checked the CPU has `kernels`; every row's `cols` elements lie
    // inside `src` and the `cols` indices inside `out` (asserted); the columns are dense
    // or (AVX-512 only) narrow (asserted); n - 1 <= i32::MAX (caller).
    unsafe {
        let (p, o) = (src.as_ptr().add(base), out.as_mut_ptr().add(i * out_w));
        match kernels {
            Kernels::Avx2 => avx2::columns::<S>(p, stride, n, cols, o, out_w),
            Kernels::Avx512 if cs == S::W => x86::columns::<S>(p, stride, n, cols, o, out_w),
            Kernels::Avx512 => x86::columns_narrow::<S>(p, stride, cs, n, cols, o, out_w),
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    for c in 0..cols {
        let b = base + c * cs;
        write_index(
            out,
            i + c,
            out_w,
            argmax_by(n, |k| S::to_f32(S::read(src, b + k * stride))),
        );
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::cache::{prefetch, prefetch_lines};
    use super::Elem;
    use crate::tensor::dtype::DType;
    use std::arch::x86_64::*;

    /// 16 elements (lanes in `m`; the others -inf) widened to F32.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn load<S: Elem>(p: *const u8, m: __mmask16) -> __m512 {
        let neg_inf = _mm512_set1_ps(f32::NEG_INFINITY);
        // SAFETY: unmasked lanes are readable (caller); masked lanes are not accessed.
        unsafe {
            if m == 0xFFFF {
                // All 16 lanes: a plain load. A masked load whose line is not in cache
                // took 4x a plain one on Zen 5 (`f32[1000003,16]` along axis 0, the
                // column kernel: 8.4 -> 2.0 ms).
                let half = || _mm256_loadu_si256(p.cast());
                return match S::DTYPE {
                    DType::F32 => _mm512_loadu_ps(p.cast()),
                    DType::F16 => _mm512_cvtph_ps(half()),
                    _ => {
                        _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(half())))
                    }
                };
            }
            match S::DTYPE {
                DType::F32 => _mm512_mask_loadu_ps(neg_inf, m, p.cast()),
                DType::F16 => _mm512_mask_blend_ps(
                    m,
                    neg_inf,
                    _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p.cast())),
                ),
                _ => {
                    let x = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, p.cast()));
                    _mm512_mask_blend_ps(
                        m,
                        neg_inf,
                        _mm512_castsi512_ps(_mm512_slli_epi32::<16>(x)),
                    )
                }
            }
        }
    }

    #[inline(always)]
    fn mask(n: usize) -> __mmask16 {
        ((1u32 << n.min(16)) - 1) as __mmask16
    }

    /// The row kernel for `1 <= n <= 64` elements: the same two passes over at most four
    /// vectors, the second without a loop: the four blocks' hit masks form one 64-bit
    /// mask whose lowest set bit is the index (the loop's exit, a different block from
    /// row to row, was a mispredicted branch per short row). Rows of 33 to 63 elements
    /// 1.15 to 1.5x faster (`f32[1,57,55,40]` along C 19.7 -> 17.3 us); at 64 the full
    /// blocks of the general kernel measured 1.1x faster, so it keeps them.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; `1 <= n <= 64` elements readable at `p`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn row_short<S: Elem>(p: *const u8, n: usize) -> usize {
        let neg_inf = _mm512_set1_ps(f32::NEG_INFINITY);
        let nb = n.div_ceil(16);
        // SAFETY: blocks below `nb` read lanes below n only (caller).
        let v: [__m512; 4] = std::array::from_fn(|b| {
            if b < nb {
                unsafe { load::<S>(p.add(16 * b * S::W), mask(n - 16 * b)) }
            } else {
                neg_inf
            }
        });
        let nan = (0..4).fold(0u64, |a, b| {
            a | (u64::from(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v[b], v[b])) << (16 * b))
        });
        let hits = if nan != 0 {
            nan
        } else {
            let m = _mm512_max_ps(_mm512_max_ps(v[0], v[1]), _mm512_max_ps(v[2], v[3]));
            let want = _mm512_set1_ps(_mm512_reduce_max_ps(m));
            (0..4).fold(0u64, |a, b| {
                a | (u64::from(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(v[b], want)) << (16 * b))
            })
        };
        // Lanes past `n` hold -inf: they tie only when every element is -inf, and then
        // lane 0 comes first.
        hits.trailing_zeros() as usize
    }

    /// [`row`] on `rows` rows `rs` bytes apart, each index written to `out` as `out_w`
    /// (4 or 8) little-endian bytes.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; each row's `n >= 1` elements readable; `rows` indices
    /// writable at `out`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn rows<S: Elem>(
        p: *const u8,
        rs: usize,
        n: usize,
        rows: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        for j in 0..rows {
            // SAFETY: row `j` and index `j` are in bounds (caller).
            unsafe { super::put_index(out, out_w, j, row::<S>(p.add(j * rs), n)) };
        }
    }

    /// # Safety
    /// AVX-512 F/BW/VL available; `n >= 1` elements readable at `p`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn row<S: Elem>(p: *const u8, n: usize) -> usize {
        if n < 64 {
            // SAFETY: same contract.
            return unsafe { row_short::<S>(p, n) };
        }
        let w = S::W;
        // Pass 1: the maximum and whether any lane is NaN (unordered with itself).
        let mut m = [_mm512_set1_ps(f32::NEG_INFINITY); 4];
        let mut nan: __mmask16 = 0;
        let mut k = 0;
        // SAFETY: every load reads lanes below n only (full blocks, then a masked tail).
        unsafe {
            while k + 64 <= n {
                for (u, acc) in m.iter_mut().enumerate() {
                    let v = load::<S>(p.add((k + 16 * u) * w), 0xFFFF);
                    nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
                    *acc = _mm512_max_ps(*acc, v);
                }
                k += 64;
            }
            while k < n {
                let v = load::<S>(p.add(k * w), mask(n - k));
                nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
                m[0] = _mm512_max_ps(m[0], v);
                k += 16;
            }
        }
        let best = _mm512_reduce_max_ps(_mm512_max_ps(
            _mm512_max_ps(m[0], m[1]),
            _mm512_max_ps(m[2], m[3]),
        ));
        // Pass 2: the first NaN if there is one, else the first element equal to the
        // maximum (-0.0 == +0.0, so zeros of either sign tie, first one wins).
        let want = _mm512_set1_ps(best);
        let mut k = 0;
        while k < n {
            // SAFETY: lanes below n only, as above.
            let v = unsafe { load::<S>(p.add(k * w), mask(n - k)) };
            let hit = if nan != 0 {
                _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v)
            } else {
                _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(v, want)
            } & mask(n - k);
            if hit != 0 {
                return k + hit.trailing_zeros() as usize;
            }
            k += 16;
        }
        0 // unreachable for n >= 1: the maximum (or a NaN) occurs
    }

    /// The argmax of `n` elements `stride` bytes apart (2 to 8 elements, 16 of them
    /// within 128 bytes), in one pass: each block of 16 is one or two masked byte loads
    /// of exactly their bytes and a lane permutation; lane `j` keeps the best of the
    /// elements `j, j + 16, ..` (the column kernel's rule), and the lanes are reduced at
    /// the end (the smallest index among the first NaNs, else among the maxima).
    /// An argmax along every other element of `f32[256,4096]` took 15x the contiguous
    /// row's time in the scalar loop.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; the `n >= 1` elements' bytes are readable; `n` fits
    /// `i32`; `stride` as above.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn row_narrow<S: Elem>(p: *const u8, stride: usize, n: usize) -> usize {
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let neg_inf = _mm512_set1_ps(f32::NEG_INFINITY);
        let narrow = Narrow::new::<S>(stride);
        // SAFETY: block `k` reads exactly the bytes of elements k..min(k + 16, n) (caller).
        let block = |k: usize| unsafe { narrow.load::<S>(p.add(k * stride), (n - k).min(16)) };
        // Four accumulators take blocks in turn (one would wait on its own compare
        // chain); one that gets no block holds -inf at index i32::MAX, never picked.
        let at = |b: usize| _mm512_add_epi32(iota, _mm512_set1_epi32(16 * b as i32));
        let nb = n.div_ceil(16);
        let empty = Lanes {
            best: neg_inf,
            idx: _mm512_set1_epi32(i32::MAX),
            done: 0,
        };
        let mut acc = [empty; 4];
        for (u, a) in acc.iter_mut().enumerate().take(nb) {
            *a = Lanes {
                idx: at(u),
                ..first(block(16 * u))
            };
        }
        let mut b = 4;
        while b < nb {
            for (u, a) in acc.iter_mut().enumerate() {
                if b + u < nb {
                    *a = step(*a, block(16 * (b + u)), at(b + u));
                }
            }
            b += 4;
        }
        // The smallest index among the lanes' first NaNs, else among their maxima.
        let min_idx = |pick: &dyn Fn(&Lanes) -> __mmask16| {
            acc.iter()
                .map(|a| _mm512_mask_reduce_min_epi32(pick(a), a.idx))
                .min()
                .unwrap_or(0) as usize
        };
        if acc.iter().any(|a| a.done != 0) {
            return min_idx(&|a| a.done);
        }
        let best = acc
            .iter()
            .map(|a| _mm512_reduce_max_ps(a.best))
            .fold(f32::NEG_INFINITY, f32::max);
        let best = _mm512_set1_ps(best);
        min_idx(&|a| _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a.best, best))
    }

    /// Loads of 16 elements `stride` bytes apart (2 to 8 elements, 16 of them within 128
    /// bytes, see `narrow_row`): one or two masked byte loads of exactly their bytes and
    /// a lane permutation, widened to F32. Shared by the row and column kernels.
    #[derive(Clone, Copy)]
    pub struct Narrow {
        /// The bytes of 16 elements from the first.
        full: u128,
        /// Lane permutation from the two 64-byte vectors to the 16 elements.
        idx: __m512i,
        stride: usize,
    }

    impl Narrow {
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        pub fn new<S: Elem>(stride: usize) -> Narrow {
            let w = S::W;
            let r = stride / w;
            let full = (0..16).fold(0u128, |m, j| m | ((1u128 << w) - 1) << (j * stride));
            let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            let idx = if w == 4 {
                _mm512_mullo_epi32(iota, _mm512_set1_epi32(r as i32))
            } else {
                let a: [u16; 32] = std::array::from_fn(|j| (j * r).min(63) as u16);
                // SAFETY: reads the 64 bytes of `a`.
                unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
            };
            Narrow { full, idx, stride }
        }

        /// The `1 <= v <= 16` elements from `q` in lanes `0..v`, the others -inf.
        ///
        /// # Safety
        /// The `v` elements' bytes are readable (no other byte is read).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        pub unsafe fn load<S: Elem>(&self, q: *const u8, v: usize) -> __m512 {
            let neg_inf = _mm512_set1_ps(f32::NEG_INFINITY);
            let m = self.full & (u128::MAX >> (128 - ((v - 1) * self.stride + S::W)));
            let idx = self.idx;
            // SAFETY: the masks select exactly the bytes of the v elements (caller).
            unsafe {
                let lo = _mm512_maskz_loadu_epi8(m as u64, q.cast());
                let hi = _mm512_maskz_loadu_epi8((m >> 64) as u64, q.wrapping_add(64).cast());
                let x = match S::DTYPE {
                    DType::F32 => _mm512_castsi512_ps(_mm512_permutex2var_epi32(lo, idx, hi)),
                    DType::F16 => _mm512_cvtph_ps(_mm512_castsi512_si256(
                        _mm512_permutex2var_epi16(lo, idx, hi),
                    )),
                    _ => {
                        let h = _mm512_castsi512_si256(_mm512_permutex2var_epi16(lo, idx, hi));
                        _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(h)))
                    }
                };
                _mm512_mask_blend_ps(mask(v), neg_inf, x)
            }
        }
    }

    /// The column kernel (see `columns`) over columns `cs` bytes apart (see
    /// `narrow_row`): output `c` is the argmax over rows `0..n` (`stride` bytes apart)
    /// of the element at `c * cs`. A reduction over the outer axis of an interleaved
    /// view (`f32[333,301]` with strides (2408, 8) along axis 0) took the scalar loop.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; rows `0..n` of `cols` elements `cs` bytes apart
    /// readable at `p`; `cols` indices of `out_w` bytes writable at `out`; n - 1 fits
    /// i32; `cs` as above.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn columns_narrow<S: Elem>(
        p: *const u8,
        stride: usize,
        cs: usize,
        n: usize,
        cols: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        let narrow = Narrow::new::<S>(cs);
        let mut c = 0;
        // SAFETY: each load reads the lanes below `cols` of a row below `n` (caller).
        while c < cols {
            let v = (cols - c).min(16);
            let col = unsafe { p.add(c * cs) };
            let mut l = first(unsafe { narrow.load::<S>(col, v) });
            for k in 1..n {
                let x = unsafe { narrow.load::<S>(col.add(k * stride), v) };
                l = step(l, x, _mm512_set1_epi32(k as i32));
            }
            unsafe { store(l, out.add(c * out_w), out_w, mask(v)) };
            c += 16;
        }
    }

    /// Per lane: best value, its index, and whether a NaN ended the search.
    #[derive(Clone, Copy)]
    struct Lanes {
        best: __m512,
        idx: __m512i,
        done: __mmask16,
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn first(v: __m512) -> Lanes {
        Lanes {
            best: v,
            idx: _mm512_setzero_si512(),
            done: _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v),
        }
    }

    /// The scalar rule lane by lane: a greater value or the first NaN takes row `k`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn step(l: Lanes, v: __m512, k: __m512i) -> Lanes {
        let live = !l.done;
        let gt = _mm512_mask_cmp_ps_mask::<_CMP_GT_OQ>(live, v, l.best);
        let nan = _mm512_mask_cmp_ps_mask::<_CMP_UNORD_Q>(live, v, v);
        Lanes {
            best: _mm512_mask_mov_ps(l.best, gt, v),
            idx: _mm512_mask_mov_epi32(l.idx, gt | nan, k),
            done: l.done | nan,
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn store(l: Lanes, out: *mut u8, out_w: usize, m: __mmask16) {
        // SAFETY: the lanes in `m` are output elements inside `out` (caller).
        unsafe {
            if out_w == 4 {
                _mm512_mask_storeu_epi32(out.cast(), m, l.idx);
            } else {
                let lo = _mm512_cvtepi32_epi64(_mm512_castsi512_si256(l.idx));
                let hi = _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(l.idx));
                _mm512_mask_storeu_epi64(out.cast(), m as u8, lo);
                _mm512_mask_storeu_epi64(out.add(64).cast(), (m >> 8) as u8, hi);
            }
        }
    }

    /// Sixteen rows of `n` (2 to 8) elements stored back to back (an RGB pixel's
    /// channels): their `16 n` elements are `n` vectors, and column `j` (elements
    /// `j, j + n, ..`) one lane permutation of each pair of them and blends by the
    /// element's pair, instead of sixteen row loads and a 16x16 transpose
    /// (`f32[1,224,224,3]` along C: 2.5x faster).
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; the `16 n` elements readable at `p`; 16 indices
    /// writable at `out`; `2 <= n <= V`, `V` 4 or 8 (4 for `n <= 4`: fewer vectors to
    /// fill, 1.05 to 1.2x faster there).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn rows16_dense<S: Elem, const V: usize>(
        p: *const u8,
        n: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        let neg_inf = _mm512_set1_ps(f32::NEG_INFINITY);
        // SAFETY: vectors below `n` read the 16 n elements (caller).
        let v: [__m512; V] = std::array::from_fn(|u| {
            if u < n {
                unsafe { load::<S>(p.add(16 * u * S::W), 0xFFFF) }
            } else {
                neg_inf
            }
        });
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let rows = _mm512_mullo_epi32(iota, _mm512_set1_epi32(n as i32));
        let (bit5, bit6) = (_mm512_set1_epi32(32), _mm512_set1_epi32(64));
        let mut l: Option<Lanes> = None;
        for j in 0..n {
            // Element `n i + j` of the 8 vectors: the permutation of a pair reads the
            // index's low five bits, bits 5 and 6 say which pair holds it.
            let idx = _mm512_add_epi32(rows, _mm512_set1_epi32(j as i32));
            let pair = |a: usize| _mm512_permutex2var_ps(v[a], idx, v[a + 1]);
            let b5 = _mm512_test_epi32_mask(idx, bit5);
            let mut x = pair(0);
            if n > 2 {
                x = _mm512_mask_blend_ps(b5, x, pair(2));
            }
            if V > 4 && n > 4 {
                let mut hi = pair(4);
                if n > 6 {
                    hi = _mm512_mask_blend_ps(b5, hi, pair(6));
                }
                x = _mm512_mask_blend_ps(_mm512_test_epi32_mask(idx, bit6), x, hi);
            }
            l = Some(match l {
                None => first(x),
                Some(l) => step(l, x, _mm512_set1_epi32(j as i32)),
            });
        }
        if let Some(l) = l {
            // SAFETY: 16 indices writable (caller).
            unsafe { store(l, out, out_w, 0xFFFF) };
        }
    }

    /// Sixteen contiguous rows of `n` elements, `row_stride` bytes apart, one row per
    /// lane: per block of 16 elements, sixteen masked row loads (padding lanes -inf) and
    /// a 16x16 transpose in registers, then the column kernel's rule over the block's
    /// transposed vectors;
    /// the indices go to `out` (16 of `out_w` bytes). Replaces the row kernel's two
    /// passes and horizontal reductions per row.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL available; the `n` elements of each of the 16 rows readable;
    /// 16 indices writable at `out`; `n >= 1`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn rows16_transposed<S: Elem>(
        p: *const u8,
        row_stride: usize,
        n: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        let mut l: Option<Lanes> = None;
        // Blocks of 16 elements of every row: loaded, transposed, folded in by column.
        let mut c = 0;
        while c < n {
            let m = mask(n - c);
            // SAFETY: each load reads elements c..min(c + 16, n) of one row (caller).
            let mut v: [__m512i; 16] = std::array::from_fn(|i| unsafe {
                _mm512_castps_si512(load::<S>(p.add(i * row_stride + c * S::W), m))
            });
            crate::tensor::kernels::transpose::transpose16(&mut v);
            for (j, &x) in v.iter().enumerate().take(n - c) {
                let x = _mm512_castsi512_ps(x);
                l = Some(match l {
                    None => first(x),
                    Some(l) => step(l, x, _mm512_set1_epi32((c + j) as i32)),
                });
            }
            c += 16;
        }
        if let Some(l) = l {
            // SAFETY: 16 indices writable (caller).
            unsafe { store(l, out, out_w, 0xFFFF) };
        }
    }

    /// # Safety
    /// AVX-512 F/BW/VL available; rows `0..n` (`stride` bytes apart) of `cols` elements
    /// readable at `p`; `cols` indices of `out_w` bytes writable at `out`; n - 1 fits i32.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub unsafe fn columns<S: Elem>(
        p: *const u8,
        stride: usize,
        n: usize,
        cols: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        let w = S::W;
        let mut c = 0;
        // Four vectors of columns at a time (one cache line of F32 per vector per row).
        // SAFETY (all blocks below): lanes below `cols` of rows below `n` are in bounds.
        while c + 64 <= cols {
            let mut l =
                [0, 1, 2, 3].map(|u| first(unsafe { load::<S>(p.add((c + 16 * u) * w), 0xFFFF) }));
            let ahead = Ahead::new(n, stride, 64 * w);
            for k in 1..n {
                let kv = _mm512_set1_epi32(k as i32);
                let row = unsafe { p.add(k * stride + c * w) };
                ahead.block(row);
                for (u, lane) in l.iter_mut().enumerate() {
                    *lane = step(*lane, unsafe { load::<S>(row.add(16 * u * w), 0xFFFF) }, kv);
                }
            }
            for (u, lane) in l.iter().enumerate() {
                unsafe { store(*lane, out.add((c + 16 * u) * out_w), out_w, 0xFFFF) };
            }
            c += 64;
        }
        while c < cols {
            let m = mask(cols - c);
            let row = |k: usize| unsafe { load::<S>(p.add(k * stride + c * w), m) };
            let l = if n >= 2 * CHAINS {
                // One vector a row would be one chain of dependent compares (about 2.5 ns
                // a row, `f32[100003,7]` along axis 0); rows `k % CHAINS == u` go to
                // chain `u`, each in row order, merged at the end by the same rule.
                let mut l: [Lanes; CHAINS] = std::array::from_fn(|u| Lanes {
                    idx: _mm512_set1_epi32(u as i32),
                    ..first(row(u))
                });
                let mut k = CHAINS;
                let ahead = Ahead::new(n, stride, (cols - c).min(16) * w);
                while k + CHAINS <= n {
                    ahead.rows(unsafe { p.add(c * w) }.wrapping_add(k * stride), CHAINS);
                    for (u, lane) in l.iter_mut().enumerate() {
                        *lane = step(*lane, row(k + u), _mm512_set1_epi32((k + u) as i32));
                    }
                    k += CHAINS;
                }
                for (u, j) in (k..n).enumerate() {
                    l[u] = step(l[u], row(j), _mm512_set1_epi32(j as i32));
                }
                l[1..].iter().fold(l[0], |a, &b| merge(a, b))
            } else {
                let mut l = first(row(0));
                for k in 1..n {
                    l = step(l, row(k), _mm512_set1_epi32(k as i32));
                }
                l
            };
            unsafe { store(l, out.add(c * out_w), out_w, m) };
            c += 16;
        }
    }

    /// Independent chains of rows in the column kernel's last blocks.
    const CHAINS: usize = 4;

    /// Bytes of rows (rows times their stride) from which the loops that read them by
    /// masked loads ask for their lines ahead: masked loads do not start Zen 5's
    /// hardware prefetchers, so past L2 such loops crawled (`f32[3000000,7]` along axis
    /// 0, a column block of 7: 5 ns a row; `f32[1000003,12]` along axis 1, rows of 12
    /// transposed 16 at a time: 12 ns a row).
    const AHEAD_MIN_BYTES: usize = 1 << 20;

    /// Bytes past the rows being read whose lines those loops ask for (2 KiB measured
    /// up to 1.1x slower, 1 KiB up to 1.2x).
    const AHEAD_BYTES: usize = 4096;

    /// Rows at least this many bytes apart are not asked for by [`Ahead::block`]: each
    /// would be on its own page, and the prefetches measured no gain there.
    const AHEAD_BLOCK_MAX_STRIDE: usize = 4096;

    /// The lines asked for ahead of a step over rows `stride` apart, each read as a
    /// block of `block` bytes: [`Ahead::rows`] for the masked-load loops, [`Ahead::block`]
    /// for the 64-column blocks.
    pub struct Ahead {
        on: bool,
        stride: usize,
        block: usize,
    }

    impl Ahead {
        /// For a loop over `n` such rows: on from [`AHEAD_MIN_BYTES`].
        pub fn new(n: usize, stride: usize, block: usize) -> Ahead {
            Ahead {
                on: n.saturating_mul(stride) >= AHEAD_MIN_BYTES,
                stride,
                block: block.max(1),
            }
        }

        /// Asks for the lines [`AHEAD_BYTES`] past the `rows` rows from `p`: their whole
        /// span for rows up to 128 bytes apart, else each row block's first and last byte
        /// (hints: they may point past the input and are never dereferenced).
        #[inline(always)]
        pub fn rows(&self, p: *const u8, rows: usize) {
            if !self.on {
                return;
            }
            let q = p.wrapping_add(AHEAD_BYTES);
            if self.stride <= 128 {
                prefetch_lines(q, rows * self.stride);
            } else {
                for u in 0..rows {
                    let r = q.wrapping_add(u * self.stride);
                    prefetch(r);
                    prefetch(r.wrapping_add(self.block - 1));
                }
            }
        }

        /// Asks for every line of the row block as many rows past `p` as make
        /// [`AHEAD_BYTES`] of blocks: the 64-column loop reads a cache line of F32 per
        /// vector, by plain loads, yet on a Xeon (Granite Rapids) a lone thread waited on
        /// them past L2 (`f32[262144,64]` along axis 0: 0.70x the time with these).
        #[inline(always)]
        pub fn block(&self, p: *const u8) {
            if self.on && self.stride < AHEAD_BLOCK_MAX_STRIDE {
                let rows = AHEAD_BYTES / self.block;
                prefetch_lines(p.wrapping_add(rows * self.stride), self.block);
            }
        }
    }

    /// Lane by lane, the result of two chains over disjoint rows as the scalar rule would
    /// give over their union: the earlier first NaN, else the greater best, else (equal,
    /// -0 and +0 too) the earlier index.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    fn merge(a: Lanes, b: Lanes) -> Lanes {
        let earlier = _mm512_cmplt_epi32_mask(b.idx, a.idx);
        let greater = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(b.best, a.best);
        let equal = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(b.best, a.best);
        let neither = !a.done & !b.done;
        let take = (b.done & (!a.done | earlier)) | (neither & (greater | (equal & earlier)));
        Lanes {
            best: _mm512_mask_mov_ps(a.best, take, b.best),
            idx: _mm512_mask_mov_epi32(a.idx, take, b.idx),
            done: a.done | b.done,
        }
    }
}

/// The row and dense column kernels with AVX2 (8 lanes, F16 widened by F16C), the same
/// rules as the AVX-512 ones; tails shorter than a vector go through the scalar rule.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{argmax_by, Elem};
    use crate::tensor::dtype::DType;
    use std::arch::x86_64::*;

    /// 8 elements widened to F32.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn load<S: Elem>(p: *const u8) -> __m256 {
        // SAFETY: 8 elements readable at p (caller).
        unsafe {
            match S::DTYPE {
                DType::F32 => _mm256_loadu_ps(p.cast()),
                DType::F16 => _mm256_cvtph_ps(_mm_loadu_si128(p.cast())),
                _ => {
                    let x = _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast()));
                    _mm256_castsi256_ps(_mm256_slli_epi32::<16>(x))
                }
            }
        }
    }

    /// Element `k` of the row at `p` as F32.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn get<S: Elem>(p: *const u8, k: usize) -> f32 {
        // SAFETY: element k readable (caller).
        unsafe {
            match S::DTYPE {
                DType::F32 => p.add(4 * k).cast::<f32>().read_unaligned(),
                DType::F16 => {
                    half::f16::from_bits(p.add(2 * k).cast::<u16>().read_unaligned()).to_f32()
                }
                _ => f32::from_bits(u32::from(p.add(2 * k).cast::<u16>().read_unaligned()) << 16),
            }
        }
    }

    /// [`row`] on `rows` rows `rs` bytes apart.
    ///
    /// # Safety
    /// AVX2 and F16C available; each row's `n >= 1` elements readable; `rows` indices of
    /// `out_w` (4 or 8) bytes writable at `out`.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn rows<S: Elem>(
        p: *const u8,
        rs: usize,
        n: usize,
        rows: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        for j in 0..rows {
            // SAFETY: row j and index j are in bounds (caller).
            unsafe { super::put_index(out, out_w, j, row::<S>(p.add(j * rs), n)) };
        }
    }

    /// Two passes, as the AVX-512 row kernel: the maximum and whether a NaN occurs
    /// (four accumulators, 32 elements a step), then the first NaN or the first element
    /// equal to the maximum (-0.0 == +0.0: the first zero wins).
    ///
    /// # Safety
    /// AVX2 and F16C available; `n >= 1` elements readable at `p`.
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn row<S: Elem>(p: *const u8, n: usize) -> usize {
        let w = S::W;
        let body = n - n % 8;
        if body == 0 {
            // SAFETY: elements below n (caller).
            return argmax_by(n, |k| unsafe { get::<S>(p, k) });
        }
        let mut m = [_mm256_set1_ps(f32::NEG_INFINITY); 4];
        let mut nan = _mm256_setzero_ps();
        let mut k = 0;
        // SAFETY (loads): whole blocks of 8 below `body <= n`.
        while k + 32 <= body {
            for (u, acc) in m.iter_mut().enumerate() {
                let v = unsafe { load::<S>(p.add((k + 8 * u) * w)) };
                nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
                *acc = _mm256_max_ps(*acc, v);
            }
            k += 32;
        }
        while k < body {
            let v = unsafe { load::<S>(p.add(k * w)) };
            nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
            m[0] = _mm256_max_ps(m[0], v);
            k += 8;
        }
        let mut any_nan = _mm256_movemask_ps(nan) != 0;
        let v = _mm256_max_ps(_mm256_max_ps(m[0], m[1]), _mm256_max_ps(m[2], m[3]));
        let x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
        let x = _mm_max_ps(x, _mm_movehl_ps(x, x));
        let x = _mm_max_ss(x, _mm_shuffle_ps::<1>(x, x));
        let mut best = _mm_cvtss_f32(x);
        for k in body..n {
            // SAFETY: element below n.
            let v = unsafe { get::<S>(p, k) };
            any_nan |= v.is_nan();
            best = best.max(v);
        }
        let want = _mm256_set1_ps(best);
        let mut k = 0;
        while k < body {
            let v = unsafe { load::<S>(p.add(k * w)) };
            let hit = if any_nan {
                _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v)
            } else {
                _mm256_cmp_ps::<_CMP_EQ_OQ>(v, want)
            };
            let bits = _mm256_movemask_ps(hit);
            if bits != 0 {
                return k + bits.trailing_zeros() as usize;
            }
            k += 8;
        }
        // SAFETY: elements below n.
        (body..n)
            .find(|&k| {
                let v = unsafe { get::<S>(p, k) };
                if any_nan {
                    v.is_nan()
                } else {
                    v == best
                }
            })
            .unwrap_or(0) // unreachable: the maximum (or a NaN) occurs
    }

    /// Per lane (one column each): the best value, its row, and whether a NaN was seen.
    #[derive(Clone, Copy)]
    struct Lanes {
        best: __m256,
        idx: __m256i,
        done: __m256,
    }

    /// The scalar rule lane by lane: a greater value or the first NaN takes row `k`.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn step(l: Lanes, v: __m256, k: __m256i) -> Lanes {
        let gt = _mm256_andnot_ps(l.done, _mm256_cmp_ps::<_CMP_GT_OQ>(v, l.best));
        let nan = _mm256_andnot_ps(l.done, _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
        let take = _mm256_castps_si256(_mm256_or_ps(gt, nan));
        Lanes {
            best: _mm256_blendv_ps(l.best, v, gt),
            idx: _mm256_blendv_epi8(l.idx, k, take),
            done: _mm256_or_ps(l.done, nan),
        }
    }

    /// # Safety
    /// AVX2 and F16C available; rows `0..n` (`stride` bytes apart) of `cols` elements
    /// readable at `p`; `cols` indices of `out_w` bytes writable at `out`; n - 1 fits i32.
    #[target_feature(enable = "avx2,f16c")]
    pub unsafe fn columns<S: Elem>(
        p: *const u8,
        stride: usize,
        n: usize,
        cols: usize,
        out: *mut u8,
        out_w: usize,
    ) {
        let w = S::W;
        let first = |v: __m256| Lanes {
            best: v,
            idx: _mm256_setzero_si256(),
            done: _mm256_cmp_ps::<_CMP_UNORD_Q>(v, v),
        };
        let mut c = 0;
        // Four vectors of columns at a time (32 columns, 128 bytes of F32 per row).
        // SAFETY (all blocks below): columns below `cols` of rows below `n` are in bounds.
        while c + 32 <= cols {
            let mut l = [first(_mm256_setzero_ps()); 4];
            for (u, lane) in l.iter_mut().enumerate() {
                *lane = first(unsafe { load::<S>(p.add((c + 8 * u) * w)) });
            }
            for k in 1..n {
                let kv = _mm256_set1_epi32(k as i32);
                let row = unsafe { p.add(k * stride + c * w) };
                for (u, lane) in l.iter_mut().enumerate() {
                    *lane = step(*lane, unsafe { load::<S>(row.add(8 * u * w)) }, kv);
                }
            }
            for (u, lane) in l.iter().enumerate() {
                unsafe { store(lane.idx, out.add((c + 8 * u) * out_w), out_w) };
            }
            c += 32;
        }
        while c + 8 <= cols {
            let mut l = first(unsafe { load::<S>(p.add(c * w)) });
            for k in 1..n {
                let v = unsafe { load::<S>(p.add(k * stride + c * w)) };
                l = step(l, v, _mm256_set1_epi32(k as i32));
            }
            unsafe { store(l.idx, out.add(c * out_w), out_w) };
            c += 8;
        }
        for c in c..cols {
            // SAFETY: column c of rows below n, index c.
            let best = argmax_by(n, |k| unsafe { get::<S>(p.add(k * stride), c) });
            unsafe { super::put_index(out, out_w, c, best) };
        }
    }

    /// Writes 8 indices as `out_w`-byte integers.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn store(idx: __m256i, out: *mut u8, out_w: usize) {
        // SAFETY: 8 indices writable (caller).
        unsafe {
            if out_w == 4 {
                _mm256_storeu_si256(out.cast(), idx);
            } else {
                let lo = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx));
                let hi = _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(idx));
                _mm256_storeu_si256(out.cast(), lo);
                _mm256_storeu_si256(out.add(32).cast(), hi);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn argmax_impl<S: Elem>(
    exec: &Exec,
    spec: &TensorSpec,
    g: &Geometry,
    rows: &Option<super::cast_tess::Rows>,
    axis: usize,
    src: &[u8],
    out_w: usize,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    if spec.dims.is_empty() {
        return Ok(());
    }
    let scratch;
    let (sg, src) = match g {
        Geometry::Strided(sg) => (*sg, src),
        _ => {
            // Unpack the logical elements (never the padding) into a contiguous buffer.
            let flat = StridedGeom::contiguous(&spec.dims, S::W as u64)?;
            if let Some(slabs) = Slabs::new(spec, g, &flat, axis) {
                let job = SlabJob {
                    spec,
                    g,
                    rows,
                    flat: &flat,
                    reduced: axis,
                    src,
                    out_w,
                };
                return slabs.run::<S>(exec, &job, dst);
            }
            scratch = {
                let mut b = vec![0u8; flat.span as usize];
                let dtype = spec.dtype;
                super::cast_tess::cast_untess(
                    exec, spec, g, rows, src, dtype, &flat, &mut b, None,
                )?;
                b
            };
            (flat, &scratch[..])
        }
    };
    let r = Reduction::new(&sg, axis, S::W);
    let total = dst.len() / out_w;
    let path = exec.path;
    // Few outputs, or output chunks narrower than a vector of columns (each would read
    // every row's cache lines): split the reduced axis instead.
    let few = total < exec.parts.saturating_mul(SPLIT_REDUCED_BELOW);
    let narrow = r.inner > 1 && units_per_chunk(exec.parts, total) < SPLIT_REDUCED_BELOW;
    if exec.parts > 1 && total > 0 && r.n >= exec.parts && (few || narrow) {
        argmax_split_reduced::<S>(exec, &r, src, out_w, dst);
        return Ok(());
    }
    for_unit_chunks(exec, dst, out_w, total, |first, count, out| {
        argmax_part::<S>(path, &r, src, out_w, first, count, out)
    });
    Ok(())
}

/// Outputs per part, or columns per output chunk, below which a parallel Argmax splits
/// the reduced axis instead of the outputs: a vector's worth of columns. Narrower chunks
/// each read every row's cache lines (`f32[1000003,64]` along axis 0 cut into chunks of
/// 4 columns: 12x slower on two threads than on one).
const SPLIT_REDUCED_BELOW: usize = 16;

/// Few outputs over a long reduced axis (`f32[3000000,7]` along axis 0: 7 outputs): the
/// reduced axis is cut into one range of rows per part, each range reduced as a whole
/// reduction would be, and the ranges' winners merged in order by the rule: the first
/// range whose winner is a NaN, else the greatest winner, the earliest range on ties
/// (-0 ties +0). That is the rule over the whole axis, so the split changes nothing.
/// Cutting the outputs instead gave a chunk per output, each reading every row's cache
/// lines: on two threads 4x slower than on one.
fn argmax_split_reduced<S: Elem>(
    exec: &Exec,
    r: &Reduction,
    src: &[u8],
    out_w: usize,
    dst: &mut [u8],
) {
    let total = dst.len() / out_w;
    let per = r.n.div_ceil(exec.parts);
    let ranges = r.n.div_ceil(per);
    // Each range's winners as 8-byte indices into the range.
    let unit = total * 8;
    let mut winners = vec![0u8; ranges * unit];
    let path = exec.path;
    for_unit_chunks(exec, &mut winners, unit, ranges, |first, count, chunk| {
        for (q, out) in chunk.chunks_exact_mut(unit).take(count).enumerate() {
            let k0 = (first + q) * per;
            let sub = Reduction {
                n: per.min(r.n - k0),
                ..*r
            };
            argmax_part::<S>(path, &sub, &src[k0 * r.stride..], 8, 0, total, out);
        }
    });
    // The rule over the ranges' winners, in range order, is the rule over the axis.
    for j in 0..total {
        let base = r.outer_offset(j / r.inner) + r.inner_offset(j % r.inner);
        let row = |p: usize| {
            let w = &winners[p * unit + 8 * j..p * unit + 8 * j + 8];
            p * per + i64::from_le_bytes(w.try_into().unwrap_or([0; 8])) as usize
        };
        let p = argmax_by(ranges, |p| {
            S::to_f32(S::read(src, base + row(p) * r.stride))
        });
        write_index(dst, j, out_w, row(p));
    }
}

/// Bytes of unpacked input per slab of a tiled Argmax: the slab stays in
/// cache between its unpacking and its reduction, and the scratch buffer is zeroed once
/// at that size instead of at the tensor's. Slabs of 8 to 128 KiB measured within 10%
/// of each other, 128 KiB the fastest (f32[1,57,55,40] in 1x4x4x16 tiles along C: 19.3
/// us unpacked whole, 16.3 us in slabs; f32[4,56,56,64]: 136 -> 119 us).
const SLAB_BYTES: usize = 128 << 10;

/// A tiled input reduced slab by slab: whole tiles along the unpacked tensor's outermost
/// axis longer than one (`axis`, `per_tile` rows a tile, `tiles` tiles), unpacked into a
/// small buffer and reduced before the next, when the reduced axis is another one (so a
/// slab's outputs are one run of the output).
struct Slabs {
    axis: usize,
    per_tile: usize,
    tiles: usize,
    /// Tiles per slab.
    step: usize,
}

impl Slabs {
    fn new(spec: &TensorSpec, g: &Geometry, flat: &StridedGeom, reduced: usize) -> Option<Slabs> {
        let (axis, per_tile, tiles) = super::cast_tess::untess_slab_axis(g, &spec.dims, flat)?;
        // Every axis before `axis` has extent 1 (it is the contiguous layout's outermost
        // axis longer than one), so slabs are runs of the input and of the output.
        let outermost = (0..axis).all(|ax| flat.ext[ax] == 1);
        let tile_bytes = per_tile.checked_mul(flat.stride[axis] as usize)?;
        (outermost && axis != reduced && tiles > 1).then(|| Slabs {
            axis,
            per_tile,
            tiles,
            step: (SLAB_BYTES / tile_bytes.max(1)).max(1),
        })
    }

    /// Every tile along the slab axis, the workers of `exec` taking runs of whole tiles
    /// (their outputs are runs of `dst`), each unpacking its own slabs on one thread.
    fn run<S: Elem>(&self, exec: &Exec, job: &SlabJob, dst: &mut [u8]) -> Result<(), TensorError> {
        let ext = job.flat.ext[self.axis] as usize;
        // Output bytes per index along the slab axis (the output is row-major, that axis
        // first).
        let row_out = dst.len() / ext;
        let one = Exec { parts: 1, ..*exec };
        let failed = std::sync::Mutex::new(None);
        let unit = self.per_tile * row_out;
        for_unit_chunks(exec, dst, unit, self.tiles, |first, count, out| {
            if let Err(e) = self.run_tiles::<S>(&one, job, first..first + count, out) {
                if let Ok(mut f) = failed.lock() {
                    f.get_or_insert(e);
                }
            }
        });
        match failed.into_inner() {
            Ok(Some(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// Tiles `tiles` along the slab axis, slab by slab, into `dst` (their outputs).
    fn run_tiles<S: Elem>(
        &self,
        exec: &Exec,
        job: &SlabJob,
        tiles: std::ops::Range<usize>,
        dst: &mut [u8],
    ) -> Result<(), TensorError> {
        let (flat, out_w) = (job.flat, job.out_w);
        let ext = flat.ext[self.axis] as usize;
        let row_bytes = flat.stride[self.axis] as usize;
        let first_row = tiles.start * self.per_tile;
        // Outputs per index along the slab axis.
        let per_row = dst.len() / out_w / ((tiles.end * self.per_tile).min(ext) - first_row);
        let most = (self.step * self.per_tile).min(ext);
        let mut buf = vec![0u8; most * row_bytes];
        let mut t0 = tiles.start;
        while t0 < tiles.end {
            let t1 = (t0 + self.step).min(tiles.end);
            let (r0, r1) = (t0 * self.per_tile, (t1 * self.per_tile).min(ext));
            let slab = &mut buf[..(r1 - r0) * row_bytes];
            let (spec, dtype) = (job.spec, job.spec.dtype);
            let range = Some(t0..t1);
            super::cast_tess::cast_untess(
                exec, spec, job.g, job.rows, job.src, dtype, flat, slab, range,
            )?;
            let mut sub = *flat;
            sub.ext[self.axis] = (r1 - r0) as u64;
            let r = Reduction::new(&sub, job.reduced, S::W);
            let (o0, o1) = ((r0 - first_row) * per_row, (r1 - first_row) * per_row);
            let out = &mut dst[o0 * out_w..o1 * out_w];
            argmax_part::<S>(exec.path, &r, slab, out_w, 0, (r1 - r0) * per_row, out);
            t0 = t1;
        }
        Ok(())
    }
}

/// What a slab-by-slab Argmax reduces: the tiled input (`spec`, `g`, its tile-row walk
/// `rows`, bytes `src`), its unpacked contiguous geometry `flat`, the reduced axis and
/// the output index width.
struct SlabJob<'a> {
    spec: &'a TensorSpec,
    g: &'a Geometry,
    rows: &'a Option<super::cast_tess::Rows>,
    flat: &'a StridedGeom,
    reduced: usize,
    src: &'a [u8],
    out_w: usize,
}

/// Runs argmax; `dst` is exactly the contiguous output span. A tiled input is first
/// unpacked by CastUntess with `rows`, its tile-row walk into the contiguous layout
/// (prepared by [`super::cast_tess::rows_of`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn argmax(
    exec: &Exec,
    spec: &TensorSpec,
    g: &Geometry,
    rows: &Option<super::cast_tess::Rows>,
    axis: usize,
    src: &[u8],
    out: DType,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    let w = out.width() as usize;
    match spec.dtype {
        DType::F32 => argmax_impl::<EF32>(exec, spec, g, rows, axis, src, w, dst),
        DType::F16 => argmax_impl::<EF16>(exec, spec, g, rows, axis, src, w, dst),
        DType::BF16 => argmax_impl::<EBF16>(exec, spec, g, rows, axis, src, w, dst),
        d => Err(TensorError::new(
            Rule::UnsupportedDType,
            format!("argmax: input dtype {d} is not a float dtype"),
        )),
    }
}
