//! A 16x16 transpose of 32-bit lanes in AVX-512 registers, shared by the conversion
//! kernels (NCHW data into tiles) and Argmax (short rows, one row per lane).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Lane indices of the four stages of [`transpose16`]: for bit `b` (8, 4, 2, 1),
/// the new row `i` (`i & b == 0`) and the new row `i + b`, as `vpermt2d` indices
/// into (row `i`, row `i + b`).
#[cfg(target_arch = "x86_64")]
const TRANSPOSE_IDX: [[u32; 16]; 8] = {
    let mut t = [[0u32; 16]; 8];
    let mut st = 0;
    while st < 4 {
        let b = 8u32 >> st;
        let mut l = 0u32;
        while l < 16 {
            let (lo, hi) = if l & b == 0 {
                (l, l + b)
            } else {
                (16 + l - b, 16 + l)
            };
            t[2 * st][l as usize] = lo;
            t[2 * st + 1][l as usize] = hi;
            l += 1;
        }
        st += 1;
    }
    t
};

/// One stage of the transposes: for each listed row `i`, rows `i` and `i + b` of `v`
/// through the `vpermt2d` index pair `st` of `idx` (blocks of `8 >> st` lanes swapped).
#[cfg(target_arch = "x86_64")]
macro_rules! stage {
    ($v:ident, $idx:ident, $st:literal, $b:literal, $($i:literal)*) => {$(
        let (x, y) = ($v[$i], $v[$i + $b]);
        // SAFETY: register-only permutations; AVX-512 F enabled by callers.
        unsafe {
            $v[$i] = _mm512_permutex2var_epi32(x, $idx[2 * $st], y);
            $v[$i + $b] = _mm512_permutex2var_epi32(x, $idx[2 * $st + 1], y);
        }
    )*};
}

/// The index pairs of [`TRANSPOSE_IDX`] as vectors.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_idx() -> [__m512i; 8] {
    // SAFETY: 64-byte reads of the 64-byte rows of a constant table.
    std::array::from_fn(|k| unsafe { _mm512_loadu_si512(TRANSPOSE_IDX[k].as_ptr().cast()) })
}

/// Transposes the 16x16 matrix of 32-bit lanes `v` (row `i`, lane `l`) in
/// place: for each bit `b` of the index (8, 4, 2, 1), rows `i` and `i + b`
/// (`i & b == 0`) swap their off-diagonal `b`-lane blocks. Straight-line code
/// with constant indices: `v` stays in registers, the compiler sees each step as
/// a fixed shuffle (and folds the steps on rows known to be zero, or whose
/// results are never used).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn transpose16(v: &mut [__m512i; 16]) {
    let idx = transpose_idx();
    stage!(v, idx, 0, 8, 0 1 2 3 4 5 6 7);
    stage!(v, idx, 1, 4, 0 1 2 3 8 9 10 11);
    stage!(v, idx, 2, 2, 0 1 4 5 8 9 12 13);
    stage!(v, idx, 3, 1, 0 2 4 6 8 10 12 14);
}

/// Transposes the `(16 / TC) x (16 / TC)` matrix of `TC`-lane units (`TC` = 2 or 4
/// 32-bit lanes) held in rows `0..16 / TC` of `v`: unit `j` of row `i` (lanes
/// `j * TC..(j + 1) * TC`) becomes unit `i` of row `j`. The stages of [`transpose16`]
/// whose lane blocks are at least a unit, between rows `block / TC` apart.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn transpose_units<const TC: usize>(v: &mut [__m512i; 16]) {
    const { assert!(TC == 2 || TC == 4) };
    // Stage `st` swaps blocks of `8 >> st` lanes between rows `(8 >> st) / TC` apart.
    let idx = transpose_idx();
    match TC {
        2 => {
            stage!(v, idx, 0, 4, 0 1 2 3);
            stage!(v, idx, 1, 2, 0 1 4 5);
            stage!(v, idx, 2, 1, 0 2 4 6);
        }
        _ => {
            stage!(v, idx, 0, 2, 0 1);
            stage!(v, idx, 1, 1, 0 2);
        }
    }
}
