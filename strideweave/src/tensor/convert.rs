//! Element conversions between F32, F16 and BF16, bit-exact with the `half` crate:
//! round to nearest even, subnormals kept (no flush to zero), NaN stays NaN with
//! `half`'s quiet-bit rule. Bulk F32 -> BF16 / F16 use SIMD chosen at run time.

use half::{bf16, f16};

use super::dtype::DType;
use super::error::{Rule, TensorError};
use super::kernels::run::{convert_row, Row, Side};

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
    /// x86-64 AVX-512 (F, BW, VL, DQ, BF16 and VBMI: `vcvtneps2bf16` with a subnormal fix-up
    /// found by `vfpclassps`; F16 uses F16C; BF16 byte planes are split or joined by one
    /// `vpermb`).
    Avx512Bf16,
}

impl ConvertPath {
    /// Every path, fastest last.
    pub const ALL: [ConvertPath; 3] = [
        ConvertPath::Portable,
        ConvertPath::Avx2F16c,
        ConvertPath::Avx512Bf16,
    ];

    /// True when this CPU can run the path (detected once).
    pub fn is_available(self) -> bool {
        use std::sync::OnceLock;
        static AVAILABLE: OnceLock<[bool; 3]> = OnceLock::new();
        let a = AVAILABLE.get_or_init(|| ConvertPath::ALL.map(ConvertPath::detect));
        a[self as usize]
    }

    fn detect(self) -> bool {
        match self {
            ConvertPath::Portable => true,
            #[cfg(target_arch = "x86_64")]
            ConvertPath::Avx2F16c => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("f16c")
            }
            #[cfg(target_arch = "x86_64")]
            ConvertPath::Avx512Bf16 => {
                ConvertPath::Avx2F16c.detect()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512bf16")
                    && std::arch::is_x86_feature_detected!("avx512vbmi")
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

    pub(crate) fn require(self) -> Result<(), TensorError> {
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

/// BF16 bits to F32 bits, exactly as `half::bf16::to_f32`: the value is exact; a NaN
/// gets its quiet bit set, as `half` does.
///
/// ```
/// use strideweave::tensor::convert::bf16_to_f32_bits;
/// assert_eq!(bf16_to_f32_bits(0x3FC0), 1.5f32.to_bits());
/// assert_eq!(bf16_to_f32_bits(0x7F81), half::bf16::from_bits(0x7F81).to_f32().to_bits());
/// ```
#[inline(always)]
pub fn bf16_to_f32_bits(x: u16) -> u32 {
    let nan = (x & 0x7FFF) > 0x7F80;
    (u32::from(x) | if nan { 0x40 } else { 0 }) << 16
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
    if cfg!(target_endian = "big") {
        // The kernels read little-endian bytes; a big-endian slice is converted value by value.
        for (d, x) in dst.iter_mut().zip(src) {
            *d = bf16::from_bits(f32_to_bf16_bits(x.to_bits()));
        }
        return Ok(());
    }
    let (src, dst) = (as_bytes(src), as_bytes_mut(dst));
    convert_slice::<EF32, EBF16>(path, src, dst);
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
    if cfg!(target_endian = "big") {
        // The kernels read little-endian bytes; a big-endian slice is converted value by value.
        for (d, x) in dst.iter_mut().zip(src) {
            *d = f16::from_bits(f32_to_f16_bits(x.to_bits()));
        }
        return Ok(());
    }
    let (src, dst) = (as_bytes(src), as_bytes_mut(dst));
    convert_slice::<EF32, EF16>(path, src, dst);
    Ok(())
}

/// Marker for the plain float types whose bytes may be viewed: no padding, every bit
/// pattern valid.
trait PlainFloat: Copy {}
impl PlainFloat for f32 {}
impl PlainFloat for bf16 {}
impl PlainFloat for f16 {}

fn as_bytes<T: PlainFloat>(x: &[T]) -> &[u8] {
    // SAFETY: f32, bf16 and f16 have no padding bytes, so every byte is initialized; u8
    // has alignment 1; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast(), std::mem::size_of_val(x)) }
}

fn as_bytes_mut<T: PlainFloat>(x: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; additionally every bit pattern is a valid f32/bf16/f16,
    // so any bytes written through the view leave valid values.
    unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), std::mem::size_of_val(x)) }
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

/// A float element type as seen by the kernels: bits in a `u32`, little-endian bytes.
pub(crate) trait Elem: Copy + 'static {
    const DTYPE: DType;
    const W: usize;
    /// Reads the element at `buf[off..off + W]`.
    fn read(buf: &[u8], off: usize) -> u32;
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

/// Converts the `n` contiguous little-endian elements of `src` (bytes) into `dst` with
/// `path`, through the kernels' one conversion routine.
fn convert_slice<S: Elem, D: Elem>(path: ConvertPath, src: &[u8], dst: &mut [u8]) {
    let n = src.len() / S::W;
    let row = Row::run(n);
    convert_row::<S, D>(path, src, Side::run(S::W), dst, Side::run(D::W), row);
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
