//! Element conversions between F32, F16 and BF16, bit-exact with the `half` crate:
//! round to nearest even, subnormals kept (no flush to zero), NaN stays NaN with
//! `half`'s quiet-bit rule. Bulk F32 -> BF16 / F16 use SIMD chosen at run time.

use half::{bf16, f16};

use super::dtype::DType;
use super::error::{Rule, TensorError};

/// The instruction-set path of a bulk conversion.
///
/// ```
/// use strideweave::tensor::convert::ConvertPath;
/// assert!(ConvertPath::Portable.is_available());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConvertPath {
    /// Plain Rust, any CPU.
    Portable,
    /// x86-64 AVX2 integer rounding for BF16, F16C `vcvtps2ph` for F16.
    Avx2F16c,
    /// x86-64 AVX-512 BF16 `vcvtneps2bf16` with a subnormal fix-up (F16 uses F16C).
    Avx512Bf16,
}

impl ConvertPath {
    /// Every path, fastest last.
    pub const ALL: [ConvertPath; 3] = [
        ConvertPath::Portable,
        ConvertPath::Avx2F16c,
        ConvertPath::Avx512Bf16,
    ];

    /// True when this CPU can run the path.
    pub fn is_available(self) -> bool {
        match self {
            ConvertPath::Portable => true,
            #[cfg(target_arch = "x86_64")]
            ConvertPath::Avx2F16c => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("f16c")
            }
            #[cfg(target_arch = "x86_64")]
            ConvertPath::Avx512Bf16 => {
                ConvertPath::Avx2F16c.is_available()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512bf16")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest path this CPU can run (detected once).
    pub fn best() -> ConvertPath {
        use std::sync::OnceLock;
        static BEST: OnceLock<ConvertPath> = OnceLock::new();
        *BEST.get_or_init(|| {
            ConvertPath::ALL
                .iter()
                .rev()
                .copied()
                .find(|p| p.is_available())
                .unwrap_or(ConvertPath::Portable)
        })
    }

    fn require(self) -> Result<(), TensorError> {
        if self.is_available() {
            Ok(())
        } else {
            Err(TensorError::new(
                Rule::UnsupportedPlacement,
                format!("conversion path {self:?} is not available on this CPU"),
            ))
        }
    }
}

/// F32 bits to BF16 bits, round to nearest even, exactly as `half::bf16::from_f32`.
///
/// ```
/// use strideweave::tensor::convert::f32_to_bf16_bits;
/// let x = 1.00390625f32; // halfway between two bf16 values, rounds to even
/// assert_eq!(f32_to_bf16_bits(x.to_bits()), half::bf16::from_f32(x).to_bits());
/// ```
#[inline(always)]
pub fn f32_to_bf16_bits(x: u32) -> u16 {
    let nan = (x & 0x7FFF_FFFF) > 0x7F80_0000;
    let rounded = x.wrapping_add(0x7FFF + ((x >> 16) & 1)) >> 16;
    let quiet = (x >> 16) | 0x0040;
    (if nan { quiet } else { rounded }) as u16
}

/// F32 bits to F16 bits exactly as `half::f16::from_f32` (round to nearest even).
#[inline(always)]
pub fn f32_to_f16_bits(x: u32) -> u16 {
    f16::from_f32(f32::from_bits(x)).to_bits()
}

/// BF16 bits to F32 bits (exact).
#[inline(always)]
pub fn bf16_to_f32_bits(x: u16) -> u32 {
    u32::from(x) << 16
}

/// F16 bits to F32 bits (exact).
#[inline(always)]
pub fn f16_to_f32_bits(x: u16) -> u32 {
    f16::from_bits(x).to_f32().to_bits()
}

/// Converts `src` to `dst` element by element (F32 -> BF16), bit-exact with `half`,
/// with the fastest path of this CPU.
///
/// ```
/// use strideweave::tensor::convert::f32_to_bf16_slice;
/// let src = [1.0f32, -2.5, f32::MIN_POSITIVE / 3.0];
/// let mut dst = [half::bf16::ZERO; 3];
/// f32_to_bf16_slice(&src, &mut dst).unwrap();
/// assert_eq!(dst[1], half::bf16::from_f32(-2.5));
/// assert_eq!(dst[2], half::bf16::from_f32(f32::MIN_POSITIVE / 3.0));
/// ```
pub fn f32_to_bf16_slice(src: &[f32], dst: &mut [bf16]) -> Result<(), TensorError> {
    f32_to_bf16_slice_with(ConvertPath::best(), src, dst)
}

/// [`f32_to_bf16_slice`] with an explicit path (error when the CPU lacks it).
pub fn f32_to_bf16_slice_with(
    path: ConvertPath,
    src: &[f32],
    dst: &mut [bf16],
) -> Result<(), TensorError> {
    path.require()?;
    check_lens(src.len(), dst.len())?;
    // SAFETY: `require` proved this CPU runs `path`; lengths are checked equal; f32 is
    // 4 bytes and bf16 a 2-byte `repr(transparent)` u16, so `src` is readable for 4n and
    // `dst` writable for 2n bytes; the slices cannot overlap (one shared, one exclusive).
    unsafe {
        f32_to_bf16_raw(
            path,
            src.as_ptr().cast(),
            dst.as_mut_ptr().cast(),
            src.len(),
        )
    };
    Ok(())
}

/// Converts F32 to F16 element by element, bit-exact with `half`.
///
/// ```
/// use strideweave::tensor::convert::f32_to_f16_slice;
/// let src = [1.0f32, 65520.0, 1e-7];
/// let mut dst = [half::f16::ZERO; 3];
/// f32_to_f16_slice(&src, &mut dst).unwrap();
/// assert!(dst[1].is_infinite());
/// assert_eq!(dst[2], half::f16::from_f32(1e-7));
/// ```
pub fn f32_to_f16_slice(src: &[f32], dst: &mut [f16]) -> Result<(), TensorError> {
    f32_to_f16_slice_with(ConvertPath::best(), src, dst)
}

/// [`f32_to_f16_slice`] with an explicit path (error when the CPU lacks it).
pub fn f32_to_f16_slice_with(
    path: ConvertPath,
    src: &[f32],
    dst: &mut [f16],
) -> Result<(), TensorError> {
    path.require()?;
    check_lens(src.len(), dst.len())?;
    // SAFETY: as in `f32_to_bf16_slice_with` (`require` checked the path, lengths equal,
    // no overlap); f16 is a 2-byte `repr(transparent)` u16.
    unsafe {
        f32_to_f16_raw(
            path,
            src.as_ptr().cast(),
            dst.as_mut_ptr().cast(),
            src.len(),
        )
    };
    Ok(())
}

fn check_lens(a: usize, b: usize) -> Result<(), TensorError> {
    if a == b {
        Ok(())
    } else {
        Err(TensorError::new(
            Rule::DimsMismatch,
            format!("source has {a} elements, destination {b}"),
        ))
    }
}

/// # Safety
/// `src` readable for `4n` bytes, `dst` writable for `2n` bytes, no overlap, and
/// `path` available on this CPU.
unsafe fn f32_to_bf16_raw(path: ConvertPath, src: *const u8, dst: *mut u8, n: usize) {
    let done = match path {
        ConvertPath::Portable => 0,
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees this path is available (AVX2 + F16C detected), which
        // is the callee's target feature, and the buffer sizes the callee requires.
        ConvertPath::Avx2F16c => unsafe { x86::f32_to_bf16_avx2(src, dst, n) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the caller guarantees this path is available (AVX-512 F/BW/VL/BF16
        // detected, the callee's target features) and the buffer sizes it requires.
        ConvertPath::Avx512Bf16 => unsafe { x86::f32_to_bf16_avx512(src, dst, n) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => 0,
    };
    for i in done..n {
        // SAFETY: i < n, within both buffers per the caller's contract.
        unsafe {
            let x = u32::from_le_bytes(src.add(4 * i).cast::<[u8; 4]>().read_unaligned());
            dst.add(2 * i)
                .cast::<[u8; 2]>()
                .write_unaligned(f32_to_bf16_bits(x).to_le_bytes());
        }
    }
}

/// # Safety
/// As for [`f32_to_bf16_raw`].
unsafe fn f32_to_f16_raw(path: ConvertPath, src: *const u8, dst: *mut u8, n: usize) {
    let done = match path {
        ConvertPath::Portable => 0,
        #[cfg(target_arch = "x86_64")]
        // SAFETY: both x86 paths were detected with AVX2 + F16C (a superset of the callee's
        // `avx,f16c`), as the caller guarantees; buffer sizes per the caller's contract.
        ConvertPath::Avx2F16c | ConvertPath::Avx512Bf16 => unsafe {
            x86::f32_to_f16_f16c(src, dst, n)
        },
        #[cfg(not(target_arch = "x86_64"))]
        _ => 0,
    };
    for i in done..n {
        // SAFETY: i < n, within both buffers per the caller's contract.
        unsafe {
            let x = u32::from_le_bytes(src.add(4 * i).cast::<[u8; 4]>().read_unaligned());
            dst.add(2 * i)
                .cast::<[u8; 2]>()
                .write_unaligned(f32_to_f16_bits(x).to_le_bytes());
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Converts the first multiple of 16 elements; returns how many were done.
    ///
    /// # Safety
    /// AVX2 available; `src` readable for `4n`, `dst` writable for `2n` bytes.
    #[target_feature(enable = "avx2")]
    pub unsafe fn f32_to_bf16_avx2(src: *const u8, dst: *mut u8, n: usize) -> usize {
        let abs = _mm256_set1_epi32(0x7FFF_FFFF);
        let inf = _mm256_set1_epi32(0x7F80_0000);
        let bias = _mm256_set1_epi32(0x7FFF);
        let one = _mm256_set1_epi32(1);
        let quiet = _mm256_set1_epi32(0x40);
        let conv = |x: __m256i| {
            let lsb = _mm256_and_si256(_mm256_srli_epi32::<16>(x), one);
            let r = _mm256_srli_epi32::<16>(_mm256_add_epi32(x, _mm256_add_epi32(bias, lsb)));
            let nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, abs), inf);
            let q = _mm256_or_si256(_mm256_srli_epi32::<16>(x), quiet);
            _mm256_blendv_epi8(r, q, nan)
        };
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: AVX2 is enabled for this fn and available per its contract; i + 16 <= n,
            // so the 64 input bytes at 4i and 32 output bytes at 2i are in bounds (unaligned
            // loads and stores).
            unsafe {
                let a = _mm256_loadu_si256(src.add(4 * i).cast());
                let b = _mm256_loadu_si256(src.add(4 * i + 32).cast());
                let p = _mm256_packus_epi32(conv(a), conv(b));
                let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
                _mm256_storeu_si256(dst.add(2 * i).cast(), p);
            }
            i += 16;
        }
        i
    }

    /// `vcvtneps2bf16` treats denormal inputs as zero; lanes holding a nonzero
    /// subnormal are recomputed with integer round-to-nearest-even and blended in.
    ///
    /// # Safety
    /// AVX-512 F/BW/VL/BF16 available; buffers as for [`f32_to_bf16_avx2`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    pub unsafe fn f32_to_bf16_avx512(src: *const u8, dst: *mut u8, n: usize) -> usize {
        let abs = _mm512_set1_epi32(0x7FFF_FFFF);
        let one = _mm512_set1_epi32(1);
        let max_sub = _mm512_set1_epi32(0x007F_FFFF);
        let bias = _mm512_set1_epi32(0x7FFF);
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: the features are enabled for this fn and available per its contract;
            // i + 16 <= n: 64 input and 32 output bytes are in bounds (unaligned accesses).
            // The transmute reinterprets 32 bytes of 16 bf16 lanes as an integer vector of
            // the same size; every bit pattern is valid for both.
            unsafe {
                let x = _mm512_loadu_si512(src.add(4 * i).cast());
                let hw = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
                let mut r: __m256i = std::mem::transmute::<__m256bh, __m256i>(hw);
                // |x| - 1 < 0x007FFFFF (unsigned) <=> x is a nonzero subnormal.
                let a = _mm512_and_si512(x, abs);
                let sub = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), max_sub);
                if sub != 0 {
                    let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), one);
                    let t = _mm512_add_epi32(x, _mm512_add_epi32(bias, lsb));
                    let fix = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(t));
                    r = _mm256_mask_blend_epi16(sub, r, fix);
                }
                _mm256_storeu_si256(dst.add(2 * i).cast(), r);
            }
            i += 16;
        }
        i
    }

    /// F16C conversion with round-to-nearest-even (exact for f16, subnormals included).
    ///
    /// # Safety
    /// AVX and F16C available; buffers as for [`f32_to_bf16_avx2`].
    #[target_feature(enable = "avx,f16c")]
    pub unsafe fn f32_to_f16_f16c(src: *const u8, dst: *mut u8, n: usize) -> usize {
        let mut i = 0;
        while i + 16 <= n {
            // SAFETY: AVX and F16C are enabled for this fn and available per its contract;
            // i + 16 <= n: 64 input and 32 output bytes are in bounds (unaligned accesses).
            unsafe {
                let a = _mm256_loadu_ps(src.add(4 * i).cast());
                let b = _mm256_loadu_ps(src.add(4 * i + 32).cast());
                let ha = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(a);
                let hb = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(b);
                _mm_storeu_si128(dst.add(2 * i).cast(), ha);
                _mm_storeu_si128(dst.add(2 * i + 16).cast(), hb);
            }
            i += 16;
        }
        i
    }
}

/// A float element type as seen by the kernels: bits in a `u32`, little-endian bytes.
pub(crate) trait Elem: Copy + 'static {
    const DTYPE: DType;
    const W: usize;
    /// Reads the element at `buf[off..off + W]`.
    fn read(buf: &[u8], off: usize) -> u32;
    /// Writes the element at `buf[off..off + W]`.
    fn write(buf: &mut [u8], off: usize, bits: u32);
    fn to_f32(bits: u32) -> f32;
    fn from_f32(x: f32) -> u32;
}

/// Marker for F32 elements.
#[derive(Clone, Copy)]
pub(crate) struct EF32;
/// Marker for F16 elements.
#[derive(Clone, Copy)]
pub(crate) struct EF16;
/// Marker for BF16 elements.
#[derive(Clone, Copy)]
pub(crate) struct EBF16;

impl Elem for EF32 {
    const DTYPE: DType = DType::F32;
    const W: usize = 4;
    #[inline(always)]
    fn read(buf: &[u8], off: usize) -> u32 {
        let mut b = [0u8; 4];
        b.copy_from_slice(&buf[off..off + 4]);
        u32::from_le_bytes(b)
    }
    #[inline(always)]
    fn write(buf: &mut [u8], off: usize, bits: u32) {
        buf[off..off + 4].copy_from_slice(&bits.to_le_bytes());
    }
    #[inline(always)]
    fn to_f32(bits: u32) -> f32 {
        f32::from_bits(bits)
    }
    #[inline(always)]
    fn from_f32(x: f32) -> u32 {
        x.to_bits()
    }
}

impl Elem for EF16 {
    const DTYPE: DType = DType::F16;
    const W: usize = 2;
    #[inline(always)]
    fn read(buf: &[u8], off: usize) -> u32 {
        u32::from(u16::from_le_bytes([buf[off], buf[off + 1]]))
    }
    #[inline(always)]
    fn write(buf: &mut [u8], off: usize, bits: u32) {
        buf[off..off + 2].copy_from_slice(&(bits as u16).to_le_bytes());
    }
    #[inline(always)]
    fn to_f32(bits: u32) -> f32 {
        f32::from_bits(f16_to_f32_bits(bits as u16))
    }
    #[inline(always)]
    fn from_f32(x: f32) -> u32 {
        u32::from(f32_to_f16_bits(x.to_bits()))
    }
}

impl Elem for EBF16 {
    const DTYPE: DType = DType::BF16;
    const W: usize = 2;
    #[inline(always)]
    fn read(buf: &[u8], off: usize) -> u32 {
        u32::from(u16::from_le_bytes([buf[off], buf[off + 1]]))
    }
    #[inline(always)]
    fn write(buf: &mut [u8], off: usize, bits: u32) {
        buf[off..off + 2].copy_from_slice(&(bits as u16).to_le_bytes());
    }
    #[inline(always)]
    fn to_f32(bits: u32) -> f32 {
        f32::from_bits(bf16_to_f32_bits(bits as u16))
    }
    #[inline(always)]
    fn from_f32(x: f32) -> u32 {
        u32::from(f32_to_bf16_bits(x.to_bits()))
    }
}

/// Converts one element's bits from `S` to `D`: a bit copy for equal types,
/// otherwise through F32 exactly (rounding once).
#[inline(always)]
pub(crate) fn cvt<S: Elem, D: Elem>(bits: u32) -> u32 {
    if S::DTYPE == D::DTYPE {
        bits
    } else {
        D::from_f32(S::to_f32(bits))
    }
}

/// Converts a contiguous run of `n` elements (little-endian bytes) from `S` to `D`.
/// `src` holds at least `n * S::W` bytes and `dst` at least `n * D::W`.
pub(crate) fn convert_run<S: Elem, D: Elem>(src: &[u8], dst: &mut [u8], n: usize) {
    let src = &src[..n * S::W];
    let dst = &mut dst[..n * D::W];
    match (S::DTYPE, D::DTYPE) {
        (a, b) if a == b => dst.copy_from_slice(src),
        (DType::F32, DType::BF16) => {
            // SAFETY: `src`/`dst` were sliced to exactly 4n and 2n bytes above (a panic, not
            // UB, if too short); `best()` returns a path detected on this CPU; `src` and
            // `dst` are a shared and an exclusive borrow, so they do not overlap.
            unsafe { f32_to_bf16_raw(ConvertPath::best(), src.as_ptr(), dst.as_mut_ptr(), n) }
        }
        (DType::F32, DType::F16) => {
            // SAFETY: as above: exact 4n / 2n byte slices, a detected path, no overlap.
            unsafe { f32_to_f16_raw(ConvertPath::best(), src.as_ptr(), dst.as_mut_ptr(), n) }
        }
        _ => {
            for (s, d) in src.chunks_exact(S::W).zip(dst.chunks_exact_mut(D::W)) {
                D::write(d, 0, cvt::<S, D>(S::read(s, 0)));
            }
        }
    }
}

/// Calls `$f::<S, D>($args)` for the element types of two float dtypes, or returns
/// an `UnsupportedDType` error.
macro_rules! dispatch_float_pair {
    ($from:expr, $to:expr, $f:ident ( $($args:expr),* )) => {
        $crate::tensor::convert::dispatch_float_pair!($from, $to, $f::<>($($args),*))
    };
    ($from:expr, $to:expr, $f:ident ::<$($pre:ty),*> ( $($args:expr),* )) => {{
        use $crate::tensor::convert::{EBF16, EF16, EF32};
        use $crate::tensor::DType;
        match ($from, $to) {
            (DType::F32, DType::F32) => Ok($f::<$($pre,)* EF32, EF32>($($args),*)),
            (DType::F32, DType::F16) => Ok($f::<$($pre,)* EF32, EF16>($($args),*)),
            (DType::F32, DType::BF16) => Ok($f::<$($pre,)* EF32, EBF16>($($args),*)),
            (DType::F16, DType::F32) => Ok($f::<$($pre,)* EF16, EF32>($($args),*)),
            (DType::F16, DType::F16) => Ok($f::<$($pre,)* EF16, EF16>($($args),*)),
            (DType::F16, DType::BF16) => Ok($f::<$($pre,)* EF16, EBF16>($($args),*)),
            (DType::BF16, DType::F32) => Ok($f::<$($pre,)* EBF16, EF32>($($args),*)),
            (DType::BF16, DType::F16) => Ok($f::<$($pre,)* EBF16, EF16>($($args),*)),
            (DType::BF16, DType::BF16) => Ok($f::<$($pre,)* EBF16, EBF16>($($args),*)),
            (a, b) => Err($crate::tensor::TensorError::new(
                $crate::tensor::Rule::UnsupportedDType,
                format!("conversion {a} -> {b} is not between float dtypes"),
            )),
        }
    }};
}
pub(crate) use dispatch_float_pair;
