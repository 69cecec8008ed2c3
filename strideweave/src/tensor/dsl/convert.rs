//! Converting copies: `dst[k] = D::from(src[k])` between tensors of different float
//! value types (f32, f16, bf16, and BF16 byte planes), moved with the library's SIMD
//! conversion routine (the one the built-in kernels use) on whole common runs, as CuTe's
//! `copy` converts element-wise between tensors of different value types.
//!
//! A [`ConvertPlan`] is made once for a pair of layouts and applied to many tiles: at
//! an origin in each tensor's data (`convert_at`, a few adds and two bounds compares per
//! call), and to an edge tile clipped to a smaller box (`convert_box_at`), optionally
//! writing zeros to the rest of the destination tile. [`ConvertPlan::copy_at`] is the
//! same plan for a same-type copy (plain moves).

use super::addressing::TensorLayout;
use super::base::Tensor;
use super::engine::{Engine, EngineMut};
use super::walk::TileAt;
use crate::error::LayoutError;
use crate::tensor::convert::{cvt, dispatch_float_pair, ConvertPath, Elem};
use crate::tensor::kernels::run::{convert_grid, Fmt, Grid, Row, Side};
use crate::tensor::DType;
use crate::Layout;
use half::{bf16, f16};

/// BF16 values stored as two byte planes: the element at offset `k` has its low byte at
/// byte `k` and its high byte at byte `k + plane` (the layout of CuTe's `recast` of a
/// bf16 tensor to bytes, split in halves). The MLA tiled placement stores each pixel's
/// 16 channels this way, with `plane = 16`.
///
/// A tensor over byte planes is made with [`Tensor::bf16_planes`]; its layout's offsets
/// are those of the low bytes.
///
/// ```
/// use half::bf16;
/// use strideweave::layout;
/// use strideweave::tensor::{Bf16Planes, Tensor};
/// let mut bytes = [0u8; 8];
/// let mut t = Tensor::bf16_planes(&mut bytes[..], 4, layout!(4:1)).unwrap();
/// t.set_key(1, bf16::from_bits(0xABCD)).unwrap();
/// assert_eq!(t.get_key(1), Some(bf16::from_bits(0xABCD)));
/// let planes: &Bf16Planes<&mut [u8]> = t.engine();
/// assert_eq!(planes.plane(), 4);
/// assert_eq!(bytes, [0, 0xCD, 0, 0, 0, 0xAB, 0, 0]);   // low byte at 1, high at 1 + 4
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bf16Planes<B> {
    bytes: B,
    plane: usize,
}

mod sealed {
    /// Byte storage of a [`Bf16Planes`](super::Bf16Planes).
    pub trait Bytes {
        fn bytes(&self) -> &[u8];
    }
    pub trait BytesMut: Bytes {
        fn bytes_mut(&mut self) -> &mut [u8];
    }
    impl Bytes for &[u8] {
        fn bytes(&self) -> &[u8] {
            self
        }
    }
    impl Bytes for &mut [u8] {
        fn bytes(&self) -> &[u8] {
            self
        }
    }
    impl BytesMut for &mut [u8] {
        fn bytes_mut(&mut self) -> &mut [u8] {
            self
        }
    }
    impl Bytes for Vec<u8> {
        fn bytes(&self) -> &[u8] {
            self
        }
    }
    impl BytesMut for Vec<u8> {
        fn bytes_mut(&mut self) -> &mut [u8] {
            self
        }
    }

    /// What a converting copy needs from an engine: its bytes, its element kind and
    /// format, and element access by offset (for the portable fallback).
    pub trait Floats {
        /// The element type (a float dtype).
        const DTYPE: crate::tensor::DType;
        /// Bytes per element (for byte planes: 2, one per plane).
        const WIDTH: usize;
        /// `None`: little-endian elements of `WIDTH` bytes; `Some(p)`: byte planes.
        fn plane(&self) -> Option<usize>;
        fn float_bytes(&self) -> &[u8];
        /// Element offsets the storage holds.
        fn units(&self) -> usize;
        /// Bits of the element at offset `off < units()`.
        fn read_bits(&self, off: usize) -> u32;
    }
    pub trait FloatsMut: Floats {
        fn float_bytes_mut(&mut self) -> &mut [u8];
        /// Writes the element at offset `off < units()`.
        fn write_bits(&mut self, off: usize, bits: u32);
    }

    /// The float element types a slice-like engine may hold.
    pub trait FloatElem: Copy {
        const DTYPE: crate::tensor::DType;
        fn bits(self) -> u32;
        fn from_bits(bits: u32) -> Self;
    }
}

use sealed::{Bytes, BytesMut, FloatElem, Floats, FloatsMut};

/// Storage a converting copy reads: `&[T]`, `&mut [T]`, `Vec<T>`, `[T; N]` of `f32`,
/// `half::f16` or `half::bf16`, and [`Bf16Planes`] over bytes.
///
/// ```
/// use strideweave::tensor::FloatEngine;
/// fn reads<E: FloatEngine>(_: &E) {}
/// reads(&vec![1.0f32]);
/// reads(&[half::bf16::ONE; 2]);
/// ```
pub trait FloatEngine: Floats {}

/// Storage a converting copy writes (the writable engines of [`FloatEngine`]).
///
/// ```
/// use strideweave::tensor::FloatEngineMut;
/// fn writes<E: FloatEngineMut>(_: &mut E) {}
/// writes(&mut vec![half::f16::ZERO]);
/// ```
pub trait FloatEngineMut: FloatEngine + FloatsMut {}

macro_rules! float_elem {
    ($t:ty, $k:expr, $bits:expr, $from:expr) => {
        impl FloatElem for $t {
            const DTYPE: DType = $k;
            #[inline(always)]
            fn bits(self) -> u32 {
                #[allow(clippy::redundant_closure_call)]
                ($bits)(self)
            }
            #[inline(always)]
            fn from_bits(bits: u32) -> Self {
                #[allow(clippy::redundant_closure_call)]
                ($from)(bits)
            }
        }
    };
}
float_elem!(f32, DType::F32, f32::to_bits, f32::from_bits);
float_elem!(
    f16,
    DType::F16,
    |x: f16| u32::from(x.to_bits()),
    |b: u32| { f16::from_bits(b as u16) }
);
float_elem!(
    bf16,
    DType::BF16,
    |x: bf16| u32::from(x.to_bits()),
    |b: u32| { bf16::from_bits(b as u16) }
);

/// The bytes of a slice of plain floats (no padding, every bit pattern valid).
fn float_bytes<T: FloatElem>(x: &[T]) -> &[u8] {
    // SAFETY: f32, f16 and bf16 have no padding bytes, so all bytes are initialized; u8
    // has alignment 1; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast(), std::mem::size_of_val(x)) }
}

fn float_bytes_mut<T: FloatElem>(x: &mut [T]) -> &mut [u8] {
    // SAFETY: as above; every bit pattern is a valid f32/f16/bf16, so any bytes written
    // through the view leave valid values.
    unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), std::mem::size_of_val(x)) }
}

impl<E: Engine> Floats for E
where
    E::Elem: FloatElem,
{
    const DTYPE: DType = <E::Elem as FloatElem>::DTYPE;
    const WIDTH: usize = std::mem::size_of::<E::Elem>();
    #[inline(always)]
    fn plane(&self) -> Option<usize> {
        None
    }
    #[inline(always)]
    fn float_bytes(&self) -> &[u8] {
        float_bytes(self.elements())
    }
    #[inline(always)]
    fn units(&self) -> usize {
        self.elements().len()
    }
    #[inline(always)]
    fn read_bits(&self, off: usize) -> u32 {
        self.elements()[off].bits()
    }
}
impl<E: EngineMut> FloatsMut for E
where
    E::Elem: FloatElem,
{
    #[inline(always)]
    fn float_bytes_mut(&mut self) -> &mut [u8] {
        float_bytes_mut(self.elements_mut())
    }
    #[inline(always)]
    fn write_bits(&mut self, off: usize, bits: u32) {
        self.elements_mut()[off] = <E::Elem as FloatElem>::from_bits(bits);
    }
}
impl<E: Engine> FloatEngine for E where E::Elem: FloatElem {}
impl<E: EngineMut> FloatEngineMut for E where E::Elem: FloatElem {}

impl<B: Bytes> Floats for Bf16Planes<B> {
    const DTYPE: DType = DType::BF16;
    const WIDTH: usize = 2;
    #[inline(always)]
    fn plane(&self) -> Option<usize> {
        Some(self.plane)
    }
    #[inline(always)]
    fn float_bytes(&self) -> &[u8] {
        self.bytes.bytes()
    }
    #[inline(always)]
    fn units(&self) -> usize {
        self.bytes.bytes().len().saturating_sub(self.plane)
    }
    #[inline(always)]
    fn read_bits(&self, off: usize) -> u32 {
        let b = self.bytes.bytes();
        u32::from(b[off]) | (u32::from(b[off + self.plane]) << 8)
    }
}
impl<B: BytesMut> FloatsMut for Bf16Planes<B> {
    #[inline(always)]
    fn float_bytes_mut(&mut self) -> &mut [u8] {
        self.bytes.bytes_mut()
    }
    #[inline(always)]
    fn write_bits(&mut self, off: usize, bits: u32) {
        let p = self.plane;
        let b = self.bytes.bytes_mut();
        b[off] = bits as u8;
        b[off + p] = (bits >> 8) as u8;
    }
}
impl<B: Bytes> FloatEngine for Bf16Planes<B> {}
impl<B: BytesMut> FloatEngineMut for Bf16Planes<B> {}

impl<B: Bytes> Bf16Planes<B> {
    /// Bytes between an element's low and high byte.
    pub fn plane(&self) -> usize {
        self.plane
    }

    /// All the bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.bytes()
    }
}

impl<B: BytesMut> Bf16Planes<B> {
    /// All the bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.bytes.bytes_mut()
    }
}

impl<B: Bytes, L: TensorLayout> Tensor<Bf16Planes<B>, L> {
    /// A bf16 tensor stored as byte planes `plane` bytes apart (see [`Bf16Planes`]): the
    /// layout gives each element's low-byte offset. Checks once that the layout's
    /// cosize plus `plane` fits in the bytes (an error naming the numbers otherwise).
    ///
    /// ```
    /// use strideweave::layout;
    /// use strideweave::tensor::Tensor;
    /// let bytes = [0u8; 32];
    /// // one MLA pixel: 16 channels, low bytes then high bytes
    /// assert!(Tensor::bf16_planes(&bytes[..], 16, layout!(16:1)).is_ok());
    /// let e = Tensor::bf16_planes(&bytes[..31], 16, layout!(16:1)).err().unwrap();
    /// assert!(e.message().contains("31 bytes"), "{e}");
    /// ```
    pub fn bf16_planes(bytes: B, plane: usize, layout: L) -> Result<Self, LayoutError> {
        let len = bytes.bytes().len() as u64;
        if plane == 0 {
            return Err(LayoutError::value(format!(
                "bf16 byte-plane tensor {}: planes 0 bytes apart (a plane offset is at least 1)",
                layout.runtime()
            )));
        }
        if layout
            .cosize()
            .checked_add(plane as u64)
            .is_none_or(|n| n > len)
        {
            return Err(LayoutError::value(format!(
                "bf16 byte-plane tensor {} has cosize {} and planes {plane} bytes apart, but the data holds {len} bytes",
                layout.runtime(),
                layout.cosize()
            )));
        }
        Ok(Tensor::from_parts(Bf16Planes { bytes, plane }, layout))
    }

    /// Element at integer key `key` (first mode fastest), or `None` outside `[0, size)`.
    pub fn get_key(&self, key: u64) -> Option<bf16> {
        if key >= self.size() {
            return None;
        }
        let off = self.layout().offset(key) as usize;
        Some(bf16::from_bits(self.engine().read_bits(off) as u16))
    }
}

impl<B: Bytes, L: TensorLayout> std::fmt::Debug for Tensor<Bf16Planes<B>, L> {
    /// `Tensor(LAYOUT, planes P, [elements in key order])` (at most 64 shown).
    ///
    /// ```
    /// use strideweave::layout;
    /// use strideweave::tensor::Tensor;
    /// let bytes = [0x80u8, 0x00, 0x3F, 0x40];   // low bytes, then high bytes
    /// let t = Tensor::bf16_planes(&bytes[..], 2, layout!(2:1)).unwrap();
    /// assert_eq!(format!("{t:?}"), "Tensor(2:1, planes 2, [1.0, 2.0])");
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tensor({}, planes {}, [",
            self.layout().runtime(),
            self.engine().plane
        )?;
        let n = self.size().min(64);
        for k in 0..n {
            if k > 0 {
                f.write_str(", ")?;
            }
            match self.get_key(k) {
                Some(x) => write!(f, "{x:?}")?,
                None => f.write_str("?")?,
            }
        }
        if self.size() > n {
            f.write_str(", ...")?;
        }
        f.write_str("])")
    }
}

impl<B: BytesMut, L: TensorLayout> Tensor<Bf16Planes<B>, L> {
    /// Writes the element at integer key `key`; an error naming the key outside
    /// `[0, size)`.
    pub fn set_key(&mut self, key: u64, value: bf16) -> Result<(), LayoutError> {
        if key >= self.size() {
            return Err(LayoutError::value(format!(
                "tensor key {key} is outside [0, {})",
                self.size()
            )));
        }
        let off = self.layout().offset(key) as usize;
        self.engine_mut()
            .write_bits(off, u32::from(value.to_bits()));
        Ok(())
    }
}

/// A tag for leaves that belong to no top-level mode a box can clip.
const NO_MODE: u8 = u8::MAX;

/// One joint leaf of two layouts: `e` keys, strides `s` (source) and `d` (destination),
/// and the top-level mode it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Leaf {
    e: u64,
    s: u64,
    d: u64,
    mode: u8,
}

const NO_LEAF: Leaf = Leaf {
    e: 1,
    s: 0,
    d: 0,
    mode: NO_MODE,
};

/// Most joint leaves of a plan (small, as plans are copied per call); two layouts whose
/// common refinement has more leaves are copied element by element.
const MAX_JOINT: usize = 16;

/// Most joint leaves of a plan's layouts: room is left for a split run and the
/// leaves of a block of tiles.
const MAX_PLAN_LEAVES: usize = MAX_JOINT - 1 - super::walk::BLOCK_MODES;

/// The flat leaves of `l` as `(extent, stride)`.
fn leaves_of(l: &Layout) -> impl Iterator<Item = (u64, u64)> + '_ {
    (0..l.leaf_count()).map(|i| (l.leaf_extent(i), l.leaf_stride(i)))
}

/// The common refinement of two leaf lists of equal size: leaves on which both layouts
/// are linear. `None` when an extent of one side does not divide the other's.
fn refine(
    a: &[(u64, u64)],
    b: &[(u64, u64)],
    mode: u8,
    out: &mut [Leaf; MAX_JOINT],
    n: &mut usize,
) -> Option<()> {
    let mut a = a.iter().copied().filter(|x| x.0 != 1);
    let mut b = b.iter().copied().filter(|x| x.0 != 1);
    let (mut x, mut y) = (a.next(), b.next());
    while let (Some((ea, sa)), Some((eb, sb))) = (x, y) {
        let m = ea.min(eb);
        if ea % m != 0 || eb % m != 0 || *n >= MAX_PLAN_LEAVES {
            return None;
        }
        out[*n] = Leaf {
            e: m,
            s: sa,
            d: sb,
            mode,
        };
        *n += 1;
        x = if ea == m {
            a.next()
        } else {
            Some((ea / m, sa.saturating_mul(m)))
        };
        y = if eb == m {
            b.next()
        } else {
            Some((eb / m, sb.saturating_mul(m)))
        };
    }
    // equal sizes end together
    (x.is_none() && y.is_none()).then_some(())
}

/// The loops of one application of a plan: a run of `v` elements contiguous on both
/// sides (or, with `v == 1`, single elements), then `leaves` ordered by destination stride
/// (innermost first), and how far each side reaches.
#[derive(Clone, Copy, Debug)]
struct Loops {
    v: u64,
    leaves: [Leaf; MAX_JOINT],
    n: usize,
    /// Largest source / destination offset reached (element units).
    src_max: u64,
    dst_max: u64,
    empty: bool,
}

/// Largest divisor of `v` that is at most `cap` (at least 1).
fn divisor_at_most(v: u64, cap: u64) -> u64 {
    (1..=cap.min(v))
        .rev()
        .find(|&d| v.is_multiple_of(d))
        .unwrap_or(1)
}

fn loops_of(leaves: &[Leaf], max_run: u64) -> Loops {
    let mut l = EMPTY_LOOPS;
    loops_into(leaves.iter().copied(), max_run, &mut l);
    l
}

const EMPTY_LOOPS: Loops = Loops {
    v: 1,
    leaves: [NO_LEAF; MAX_JOINT],
    n: 0,
    src_max: 0,
    dst_max: 0,
    empty: false,
};

/// The loops of `leaves`, built in place in `l`: leaves ordered by destination stride
/// (innermost first, so writes stream; key order among ties), the common contiguous run
/// taken out, a run longer than `max_run` split, and neighbours that continue each other
/// on both sides merged.
fn loops_into(leaves: impl Iterator<Item = Leaf>, max_run: u64, l: &mut Loops) {
    l.v = 1;
    l.n = 0;
    l.src_max = 0;
    l.dst_max = 0;
    l.empty = false;
    let mut n = 0;
    for x in leaves {
        if x.e == 0 {
            l.empty = true;
        }
        if x.e > 1 {
            l.src_max += (x.e - 1) * x.s;
            l.dst_max += (x.e - 1) * x.d;
            let mut i = n;
            while i > 0 && l.leaves[i - 1].d > x.d {
                l.leaves[i] = l.leaves[i - 1];
                i -= 1;
            }
            l.leaves[i] = x;
            n += 1;
        }
    }
    // the common contiguous run: a leaf of strides (1, 1), then one of (v, v), ...
    let mut v = 1u64;
    while let Some(i) = (0..n).find(|&i| l.leaves[i].s == v && l.leaves[i].d == v) {
        v *= l.leaves[i].e;
        l.leaves.copy_within(i + 1..n, i);
        n -= 1;
    }
    // byte planes hold at most `max_run` elements per run: split a longer run
    if v > max_run {
        let w = divisor_at_most(v, max_run);
        l.leaves.copy_within(0..n, 1);
        l.leaves[0] = Leaf {
            e: v / w,
            s: w,
            d: w,
            mode: NO_MODE,
        };
        n += 1;
        v = w;
    }
    // merge leaves that continue the previous one on both sides
    let mut out = 0;
    for i in 0..n {
        let x = l.leaves[i];
        if out > 0 {
            let p = &mut l.leaves[out - 1];
            if x.s == p.e * p.s && x.d == p.e * p.d {
                p.e *= x.e;
                continue;
            }
        }
        l.leaves[out] = x;
        out += 1;
    }
    l.v = v;
    l.n = out;
}

/// Adds one leaf `x` to `l` (outside the run), kept in destination-stride order and merged
/// with a neighbour it continues on both sides: the loops of a block of tiles from
/// those of one tile.
fn add_leaf(r: &mut Loops, x: Leaf) {
    if x.e <= 1 {
        return;
    }
    // a plan has at most MAX_PLAN_LEAVES leaves, plus a split run and two added leaves
    debug_assert!(r.n < MAX_JOINT);
    r.src_max += (x.e - 1) * x.s;
    r.dst_max += (x.e - 1) * x.d;
    let mut i = r.n;
    while i > 0 && r.leaves[i - 1].d > x.d {
        r.leaves[i] = r.leaves[i - 1];
        i -= 1;
    }
    r.leaves[i] = x;
    r.n += 1;
    // merge with the previous leaf, or the next one with it
    if i > 0 {
        let p = r.leaves[i - 1];
        if x.s == p.e * p.s && x.d == p.e * p.d {
            r.leaves[i - 1].e *= x.e;
            r.leaves.copy_within(i + 1..r.n, i);
            r.n -= 1;
            return;
        }
    }
    if i + 1 < r.n {
        let q = r.leaves[i + 1];
        if q.s == x.e * x.s && q.d == x.e * x.d {
            r.leaves[i].e *= q.e;
            r.leaves.copy_within(i + 2..r.n, i + 1);
            r.n -= 1;
        }
    }
}

/// How to move the elements of one layout into another of the same size, converting
/// their type (`convert_at`, through the SIMD conversion routine) or not (`copy_at`):
/// the two layouts refined to common leaves, the longest run contiguous on both sides
/// moved at once, the other leaves looped in destination-stride order (writes stream). Made once, applied
/// to many tiles at origins in the data, and to edge tiles clipped to a box.
///
/// ```
/// use half::bf16;
/// use strideweave::Layout;
/// use strideweave::tensor::{ConvertPlan, Tensor};
/// let src: Vec<f32> = (0..64).map(|x| x as f32).collect();
/// let rows: Layout = "(4,8):(16,1)".parse().unwrap();    // a 4x8 tile of a 4x16 matrix
/// let packed: Layout = "(4,8):(8,1)".parse().unwrap();
/// let plan = ConvertPlan::new(&rows, &packed).unwrap();
/// assert_eq!(plan.vector(), 8);
/// let a = Tensor::new(&src[..], rows).unwrap();
/// let mut out = vec![bf16::ZERO; 32];
/// let mut b = Tensor::new(&mut out[..], packed).unwrap();
/// plan.convert_at(&a, 8, &mut b, 0).unwrap();            // the tile of columns 8..16
/// assert_eq!(out[9], bf16::from_f32(25.0));              // row 1, column 8 + 1
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ConvertPlan {
    src: Layout,
    dst: Layout,
    leaves: [Leaf; MAX_JOINT],
    n: usize,
    /// Top-level modes a box refers to (0 when the layouts' modes do not match).
    modes: usize,
    mode_size: [u64; MAX_TILED_MODES_PLAN],
    /// False when the layouts have no common refinement: element-by-element fallback.
    linear: bool,
    full: Loops,
    path: ConvertPath,
}

/// Most top-level modes a box clips (the tiled modes of a tensor).
const MAX_TILED_MODES_PLAN: usize = super::tile::MAX_TILED_MODES;

fn layout_of<L: TensorLayout>(l: &L) -> Layout {
    l.runtime()
}

impl ConvertPlan {
    /// The plan for moving `src`'s elements (key order) into `dst`'s, with the fastest
    /// conversion path of this CPU. The sizes must match (an error naming both).
    pub fn new(src: &Layout, dst: &Layout) -> Result<ConvertPlan, LayoutError> {
        if src.size() != dst.size() {
            return Err(LayoutError::value(format!(
                "converting copy: source {src} has {} elements but destination {dst} has {}",
                src.size(),
                dst.size()
            )));
        }
        let mut plan = ConvertPlan {
            src: *src,
            dst: *dst,
            leaves: [NO_LEAF; MAX_JOINT],
            n: 0,
            modes: 0,
            mode_size: [1; MAX_TILED_MODES_PLAN],
            linear: true,
            full: loops_of(&[], u64::MAX),
            path: ConvertPath::best(),
        };
        let same_modes = src.rank() == dst.rank()
            && src.rank() <= MAX_TILED_MODES_PLAN
            && (0..src.rank()).all(
                |m| matches!((src.get(m), dst.get(m)), (Ok(a), Ok(b)) if a.size() == b.size()),
            );
        let mut ok = true;
        if same_modes {
            for m in 0..src.rank() {
                let (a, b) = (src.get(m)?, dst.get(m)?);
                let (la, lb): (Vec<_>, Vec<_>) = (leaves_of(&a).collect(), leaves_of(&b).collect());
                plan.mode_size[m] = a.size();
                if refine(&la, &lb, m as u8, &mut plan.leaves, &mut plan.n).is_none() {
                    ok = false;
                    break;
                }
            }
            plan.modes = src.rank();
        }
        if !same_modes || !ok {
            plan.n = 0;
            plan.modes = 0;
            let (la, lb): (Vec<_>, Vec<_>) = (leaves_of(src).collect(), leaves_of(dst).collect());
            plan.linear = refine(&la, &lb, NO_MODE, &mut plan.leaves, &mut plan.n).is_some();
        }
        plan.full = loops_of(&plan.leaves[..plan.n], u64::MAX);
        if !plan.linear {
            // element by element: the reach is the layouts' cosizes
            plan.n = 0;
            plan.full = loops_of(&[], u64::MAX);
            plan.full.src_max = src.cosize().saturating_sub(1);
            plan.full.dst_max = dst.cosize().saturating_sub(1);
        }
        plan.full.empty |= src.size() == 0;
        Ok(plan)
    }

    /// The same plan with another conversion path (an error when this CPU lacks it);
    /// every path gives the same bits.
    ///
    /// ```
    /// use strideweave::tensor::convert::ConvertPath;
    /// use strideweave::tensor::ConvertPlan;
    /// let l = "8:1".parse().unwrap();
    /// let plan = ConvertPlan::new(&l, &l).unwrap().with_path(ConvertPath::Portable).unwrap();
    /// assert_eq!((plan.vector(), plan.src_layout().to_string()), (8, "8:1".to_string()));
    /// ```
    pub fn with_path(mut self, path: ConvertPath) -> Result<ConvertPlan, LayoutError> {
        if !path.is_available() {
            return Err(LayoutError::value(format!(
                "conversion path {path:?} is not available on this CPU"
            )));
        }
        self.path = path;
        Ok(self)
    }

    /// Elements moved as one contiguous run on both sides.
    pub fn vector(&self) -> u64 {
        self.full.v
    }

    /// The source layout.
    pub fn src_layout(&self) -> &Layout {
        &self.src
    }

    /// The destination layout.
    pub fn dst_layout(&self) -> &Layout {
        &self.dst
    }

    /// The loops for the keys inside `box_` (one extent per top-level mode: keys
    /// `0..box_[m]` of mode `m`).
    fn boxed(&self, box_: &[u64], out: &mut Loops) -> Result<(), LayoutError> {
        if self.modes == 0 || box_.len() != self.modes {
            return Err(LayoutError::value(format!(
                "box {box_:?} for a plan of {} -> {}: a box needs one extent per top-level mode, and both layouts must have the same mode sizes",
                self.src, self.dst
            )));
        }
        let mut rem = [1u64; MAX_TILED_MODES_PLAN];
        for (m, (&b, r)) in box_.iter().zip(rem.iter_mut()).enumerate() {
            if b > self.mode_size[m] {
                return Err(LayoutError::value(format!(
                    "box extent {b} of mode {m} is larger than the mode ({})",
                    self.mode_size[m]
                )));
            }
            *r = b;
        }
        // keys 0..b of a mode with leaves e1, e2, ... (innermost first) form a box when
        // b is a multiple of e1 * ... * e(j-1) and below e1 * ... * ej
        let mut ext = [1u64; MAX_JOINT];
        for (x, e) in self.leaves[..self.n].iter().zip(ext.iter_mut()) {
            let m = x.mode as usize;
            let r = &mut rem[m];
            if *r >= x.e {
                if *r % x.e != 0 {
                    return Err(LayoutError::value(format!(
                        "box extent {} of mode {m} is not a box of that mode's leaves (a leaf of extent {} does not divide what remains, {r})",
                        box_[m], x.e
                    )));
                }
                *r /= x.e;
                *e = x.e;
            } else {
                *e = *r;
                *r = if *r == 0 { 0 } else { 1 };
            }
        }
        let clipped = self.leaves[..self.n]
            .iter()
            .zip(ext)
            .map(|(x, e)| Leaf { e, ..*x });
        loops_into(clipped, u64::MAX, out);
        Ok(())
    }

    /// Checks that a side reaches only inside its data: `origin + max` (and, for byte
    /// planes, the high byte) below the element offsets the storage holds.
    fn check_side(
        what: &str,
        origin: u64,
        max: u64,
        units: usize,
        layout: &Layout,
    ) -> Result<(), LayoutError> {
        match origin.checked_add(max) {
            Some(end) if end < units as u64 => Ok(()),
            _ => Err(LayoutError::value(format!(
                "{what} {layout} at offset {origin} reaches offset {} but the data holds {units} elements",
                origin.saturating_add(max)
            ))),
        }
    }

    /// `dst = convert(src)` element-wise by key, where the tensors' layouts are the
    /// planned ones (an error names them otherwise).
    ///
    /// ```
    /// use half::f16;
    /// use strideweave::Layout;
    /// use strideweave::tensor::{ConvertPlan, Tensor};
    /// let l: Layout = "(2,3):(3,1)".parse().unwrap();
    /// let src = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let mut out = [f16::ZERO; 6];
    /// let plan = ConvertPlan::new(&l, &l).unwrap();
    /// plan.convert(&Tensor::new(&src[..], l).unwrap(), &mut Tensor::new(&mut out[..], l).unwrap()).unwrap();
    /// assert_eq!(out[4], f16::from_f32(5.0));
    /// ```
    pub fn convert<ES: FloatEngine, LS: TensorLayout, ED: FloatEngineMut, LD: TensorLayout>(
        &self,
        src: &Tensor<ES, LS>,
        dst: &mut Tensor<ED, LD>,
    ) -> Result<(), LayoutError> {
        if !src.layout().same_as(&self.src) || !dst.layout().same_as(&self.dst) {
            return Err(LayoutError::value(format!(
                "converting-copy plan for {} -> {} used with {} -> {}",
                self.src,
                self.dst,
                layout_of(src.layout()),
                layout_of(dst.layout())
            )));
        }
        self.convert_at(src, 0, dst, 0)
    }

    /// The planned layouts applied at element offset `src_origin` of `src`'s data and
    /// `dst_origin` of `dst`'s (the tensors' own layouts are not used): the converting
    /// copy of one tile, for two bounds compares and the conversion. An error names the
    /// offsets when a tile would reach past the data.
    #[inline]
    pub fn convert_at<ES: FloatEngine, LS: TensorLayout, ED: FloatEngineMut, LD: TensorLayout>(
        &self,
        src: &Tensor<ES, LS>,
        src_origin: u64,
        dst: &mut Tensor<ED, LD>,
        dst_origin: u64,
    ) -> Result<(), LayoutError> {
        self.run_convert(
            &self.full,
            src.engine(),
            src_origin,
            dst.engine_mut(),
            dst_origin,
            None,
        )
    }

    /// [`ConvertPlan::convert_at`] for the keys inside a box, `box_[m]` keys of each
    /// top-level mode `m` (an edge tile clipped to the data: CuTe's identity-tensor
    /// predicate for a box tile). With `zero_rest`, every other element of the
    /// destination tile is written as zero bits (the padding of a placement), else left
    /// alone. The box must be a prefix of each mode's leaves (an error names it).
    ///
    /// ```
    /// use half::bf16;
    /// use strideweave::Layout;
    /// use strideweave::tensor::{ConvertPlan, Tensor};
    /// let src = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];              // 2x3, row-major
    /// let a = Tensor::new(&src[..], "(2,3):(3,1)".parse::<Layout>().unwrap()).unwrap();
    /// let tile: Layout = "(2,4):(4,1)".parse().unwrap();       // a 2x4 tile, column 3 overhangs
    /// let plan = ConvertPlan::new(&"(2,4):(3,1)".parse().unwrap(), &tile).unwrap();
    /// let mut out = [bf16::from_f32(9.0); 8];
    /// let mut b = Tensor::new(&mut out[..], tile).unwrap();
    /// plan.convert_box_at(&a, 0, &mut b, 0, &[2, 3], true).unwrap();
    /// assert_eq!(out.map(|x| x.to_f32()), [1.0, 2.0, 3.0, 0.0, 4.0, 5.0, 6.0, 0.0]);
    /// ```
    pub fn convert_box_at<
        ES: FloatEngine,
        LS: TensorLayout,
        ED: FloatEngineMut,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        src_origin: u64,
        dst: &mut Tensor<ED, LD>,
        dst_origin: u64,
        box_: &[u64],
        zero_rest: bool,
    ) -> Result<(), LayoutError> {
        let mut loops = EMPTY_LOOPS;
        self.boxed(box_, &mut loops)?;
        let zero = zero_rest.then_some(&self.full);
        self.run_convert(
            &loops,
            src.engine(),
            src_origin,
            dst.engine_mut(),
            dst_origin,
            zero,
        )
    }

    fn run_convert<ES: FloatEngine, ED: FloatEngineMut>(
        &self,
        loops: &Loops,
        src: &ES,
        so: u64,
        dst: &mut ED,
        d_o: u64,
        zero: Option<&Loops>,
    ) -> Result<(), LayoutError> {
        self.run_convert_padded(loops, None, src, so, dst, d_o, zero)
    }

    /// [`ConvertPlan::run_convert`]; with `valid = Some(n)`, each run converts its first
    /// `n` elements and writes zero bits to the rest (`n < loops.v`).
    #[allow(clippy::too_many_arguments)]
    fn run_convert_padded<ES: FloatEngine, ED: FloatEngineMut>(
        &self,
        loops: &Loops,
        valid: Option<u64>,
        src: &ES,
        so: u64,
        dst: &mut ED,
        d_o: u64,
        zero: Option<&Loops>,
    ) -> Result<(), LayoutError> {
        if let Some(z) = zero {
            if !z.empty {
                Self::check_side("destination tile", d_o, z.dst_max, dst.units(), &self.dst)?;
                zero_fill(z, dst, d_o);
            }
        }
        if loops.empty {
            return Ok(());
        }
        let unread = valid.map_or(0, |n| loops.v - n);
        Self::check_side(
            "source tile",
            so,
            loops.src_max - unread,
            src.units(),
            &self.src,
        )?;
        Self::check_side(
            "destination tile",
            d_o,
            loops.dst_max,
            dst.units(),
            &self.dst,
        )?;
        if !self.linear || cfg!(target_endian = "big") {
            // no common refinement (or big-endian storage): element by element, by key
            let (ls, ld) = (self.src, self.dst);
            for k in 0..ls.size() {
                let (a, b) = (ls.offset(k) + so, ld.offset(k) + d_o);
                let x = src.read_bits(a as usize);
                let bits = dispatch_float_pair!(ES::DTYPE, ED::DTYPE, cvt(x)).unwrap_or(x);
                dst.write_bits(b as usize, bits);
            }
            return Ok(());
        }
        let (path, splane, dplane) = (self.path, src.plane(), dst.plane());
        let (sb, db) = (src.float_bytes(), dst.float_bytes_mut());
        dispatch_float_pair!(
            ES::DTYPE,
            ED::DTYPE,
            convert_loops(path, loops, valid, sb, splane, so, db, dplane, d_o)
        )
        .map_err(|e| LayoutError::value(e.to_string()))
    }

    /// The loops for the tiles of `t` (a run of `t.count()` tiles from a
    /// [`TileWalk`](super::TileWalk), the source and destination followed as layouts
    /// `s` and `d`): the planned tile, clipped to `t.extents()` unless the tile is full,
    /// repeated along the run.
    fn tile_loops(
        &self,
        t: &TileAt,
        (s, d): (usize, usize),
        l: &mut Loops,
    ) -> Result<(), LayoutError> {
        let (counts, ss, ds) = (t.counts(), t.steps(s), t.steps(d));
        if t.is_full() {
            *l = self.full;
        } else {
            self.boxed(t.extents(), l)?;
            l.empty |= t.extents().contains(&0);
        }
        for ((e, s), d) in counts.into_iter().zip(ss).zip(ds) {
            add_leaf(
                l,
                Leaf {
                    e,
                    s,
                    d,
                    mode: NO_MODE,
                },
            );
        }
        Ok(())
    }

    /// Converts the tiles of `t`, an item of a [`TileWalk`](super::TileWalk) that
    /// follows the source as its layout `s` and the destination as `d` (`idx = (s, d)`),
    /// with this plan made for the walk's tile layouts: a full run in one call of the
    /// conversion routine, an edge tile clipped to its extents, and, with `zero_rest`,
    /// the rest of an edge tile written as zeros (a placement's padding).
    ///
    /// ```
    /// use half::bf16;
    /// use strideweave::{Layout, Shape};
    /// use strideweave::tensor::{ConvertPlan, Tensor, TileWalk};
    /// let shape = Shape::new((5, 6)).unwrap();
    /// let src: Vec<f32> = (0..30).map(|x| x as f32).collect();
    /// let a = Tensor::new(&src[..], Layout::row_major(shape).unwrap()).unwrap();
    /// // the output: 2x2 tiles, padded to 6x6, each tile 4 contiguous values
    /// let tiled: Layout = "((2,3),(2,3)):((2,12),(1,4))".parse().unwrap();
    /// let mut out = vec![bf16::ONE; 36];
    /// let mut b = Tensor::new(&mut out[..], tiled).unwrap();
    /// let walk = TileWalk::new(&shape, &[2, 2], &[a.layout(), b.layout()]).unwrap();
    /// let plan = ConvertPlan::new(walk.tile_layout(0), walk.tile_layout(1)).unwrap();
    /// for t in walk.runs() {
    ///     plan.convert_tiles(&a, &mut b, &t, (0, 1), true).unwrap();
    /// }
    /// assert_eq!(out[4 + 3].to_f32(), src[9]);       // tile (0,1), element (1,1): row 1, column 3
    /// assert_eq!(out[24 + 1].to_f32(), src[25]);     // tile (2,0), element (0,1): row 4, column 1
    /// assert_eq!(out[24 + 2].to_f32(), 0.0);         // tile (2,0), element (1,0): row 5 is padding
    /// ```
    pub fn convert_tiles<
        ES: FloatEngine,
        LS: TensorLayout,
        ED: FloatEngineMut,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        dst: &mut Tensor<ED, LD>,
        t: &TileAt,
        idx: (usize, usize),
        zero_rest: bool,
    ) -> Result<(), LayoutError> {
        let (so, d_o) = (t.origin(idx.0), t.origin(idx.1));
        if t.is_full() && t.count() == 1 {
            return self.convert_at(src, so, dst, d_o);
        }
        if !self.linear && t.is_full() {
            // no common leaves to fold the block into: its tiles one by one
            return for_block_tiles(t, idx, |a, b| self.convert_at(src, a, dst, b));
        }
        let mut loops = EMPTY_LOOPS;
        self.tile_loops(t, idx, &mut loops)?;
        if zero_rest && !t.is_full() {
            let mut whole = *t;
            whole.set_full();
            let mut zero = EMPTY_LOOPS;
            self.tile_loops(&whole, idx, &mut zero)?;
            let cap = [src.engine().plane(), dst.engine().plane()]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(usize::MAX) as u64;
            if !loops.empty
                && loops.v < zero.v
                && zero.v <= cap
                && loops.n == zero.n
                && loops.leaves[..loops.n] == zero.leaves[..zero.n]
            {
                // only the runs are clipped: convert the start of each, zeros after it
                let (e, v) = (src.engine(), Some(loops.v));
                return self.run_convert_padded(&zero, v, e, so, dst.engine_mut(), d_o, None);
            }
            return self.run_convert(&loops, src.engine(), so, dst.engine_mut(), d_o, Some(&zero));
        }
        self.run_convert(&loops, src.engine(), so, dst.engine_mut(), d_o, None)
    }

    /// Copies the tiles of `t` (same element type; see [`ConvertPlan::convert_tiles`]):
    /// a full run in one loop nest, an edge tile clipped to its extents (the rest of
    /// the destination tile left alone).
    ///
    /// ```
    /// use strideweave::{Layout, Shape, Stride};
    /// use strideweave::tensor::{ConvertPlan, Tensor, TileWalk};
    /// // transpose a 5x3 row-major matrix: b(i, j) = out[i + 5j]
    /// let shape = Shape::new((5, 3)).unwrap();
    /// let src: Vec<u32> = (0..15).collect();
    /// let a = Tensor::new(&src[..], Layout::row_major(shape).unwrap()).unwrap();
    /// let mut out = vec![0u32; 15];
    /// let mut b = Tensor::new(&mut out[..], Layout::new(shape, Stride::new((1, 5)).unwrap()).unwrap()).unwrap();
    /// let walk = TileWalk::new(&shape, &[2, 2], &[a.layout(), b.layout()]).unwrap();
    /// let plan = ConvertPlan::new(walk.tile_layout(0), walk.tile_layout(1)).unwrap();
    /// for t in walk.runs() {
    ///     plan.copy_tiles(&a, &mut b, &t, (0, 1)).unwrap();
    /// }
    /// assert_eq!(out[2 * 5 + 4], src[4 * 3 + 2]);
    /// ```
    pub fn copy_tiles<
        T: Copy,
        ES: Engine<Elem = T>,
        LS: TensorLayout,
        ED: EngineMut<Elem = T>,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        dst: &mut Tensor<ED, LD>,
        t: &TileAt,
        idx: (usize, usize),
    ) -> Result<(), LayoutError> {
        let (so, d_o) = (t.origin(idx.0), t.origin(idx.1));
        if t.is_full() && t.count() == 1 {
            return self.copy_at(src, so, dst, d_o);
        }
        if !self.linear && t.is_full() {
            return for_block_tiles(t, idx, |a, b| self.copy_at(src, a, dst, b));
        }
        let mut loops = EMPTY_LOOPS;
        self.tile_loops(t, idx, &mut loops)?;
        self.run_copy(&loops, src.data(), so, dst.data_mut(), d_o)
    }

    /// `dst = src` (same element type) for the planned layouts at the given origins: the
    /// copy of one tile, run by run (see [`ConvertPlan::convert_at`]).
    ///
    /// ```
    /// use strideweave::Layout;
    /// use strideweave::tensor::{ConvertPlan, Tensor};
    /// let src: Vec<u32> = (0..16).collect();                            // 4x4 row-major
    /// let a = Tensor::new(&src[..], "(4,4):(4,1)".parse::<Layout>().unwrap()).unwrap();
    /// let mut out = vec![0u32; 16];
    /// let mut b = Tensor::new(&mut out[..], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
    /// let plan = ConvertPlan::new(&"(2,2):(4,1)".parse().unwrap(), &"(2,2):(1,4)".parse().unwrap()).unwrap();
    /// plan.copy_at(&a, 2, &mut b, 8).unwrap();           // the 2x2 tile at row 0, column 2
    /// assert_eq!((out[8], out[9], out[12], out[13]), (2, 6, 3, 7));
    /// ```
    #[inline]
    pub fn copy_at<
        T: Copy,
        ES: Engine<Elem = T>,
        LS: TensorLayout,
        ED: EngineMut<Elem = T>,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        src_origin: u64,
        dst: &mut Tensor<ED, LD>,
        dst_origin: u64,
    ) -> Result<(), LayoutError> {
        self.run_copy(
            &self.full,
            src.data(),
            src_origin,
            dst.data_mut(),
            dst_origin,
        )
    }

    /// [`ConvertPlan::copy_at`] for the keys inside a box (see
    /// [`ConvertPlan::convert_box_at`]); other destination elements are left alone.
    ///
    /// ```
    /// use strideweave::Layout;
    /// use strideweave::tensor::{ConvertPlan, Tensor};
    /// let src: Vec<u32> = (0..15).collect();                           // 3x5 row-major
    /// let a = Tensor::new(&src[..], "(3,5):(5,1)".parse::<Layout>().unwrap()).unwrap();
    /// let mut out = vec![0u32; 15];
    /// let mut b = Tensor::new(&mut out[..], "(3,5):(1,3)".parse::<Layout>().unwrap()).unwrap();
    /// let plan = ConvertPlan::new(&"(4,4):(5,1)".parse().unwrap(), &"(4,4):(1,3)".parse().unwrap()).unwrap();
    /// plan.copy_box_at(&a, 4, &mut b, 12, &[3, 1]).unwrap();  // the tile of column 4: 3x1
    /// assert_eq!(&out[12..], &[4, 9, 14]);
    /// ```
    pub fn copy_box_at<
        T: Copy,
        ES: Engine<Elem = T>,
        LS: TensorLayout,
        ED: EngineMut<Elem = T>,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        src_origin: u64,
        dst: &mut Tensor<ED, LD>,
        dst_origin: u64,
        box_: &[u64],
    ) -> Result<(), LayoutError> {
        let mut loops = EMPTY_LOOPS;
        self.boxed(box_, &mut loops)?;
        self.run_copy(&loops, src.data(), src_origin, dst.data_mut(), dst_origin)
    }

    #[inline]
    fn run_copy<T: Copy>(
        &self,
        loops: &Loops,
        src: &[T],
        so: u64,
        dst: &mut [T],
        d_o: u64,
    ) -> Result<(), LayoutError> {
        if loops.empty {
            return Ok(());
        }
        Self::check_side("source tile", so, loops.src_max, src.len(), &self.src)?;
        Self::check_side("destination tile", d_o, loops.dst_max, dst.len(), &self.dst)?;
        if !self.linear {
            let (ls, ld) = (self.src, self.dst);
            for k in 0..ls.size() {
                dst[(ld.offset(k) + d_o) as usize] = src[(ls.offset(k) + so) as usize];
            }
            return Ok(());
        }
        // SAFETY: every offset reached is at most origin + max on each side, checked
        // above to be below the slice lengths.
        unsafe { copy_loops(loops, src, so as usize, dst, d_o as usize) };
        Ok(())
    }
}

/// Calls `f(source origin, destination origin)` for every tile of the block `t`.
fn for_block_tiles(
    t: &TileAt,
    (s, d): (usize, usize),
    mut f: impl FnMut(u64, u64) -> Result<(), LayoutError>,
) -> Result<(), LayoutError> {
    let (c, ss, ds) = (t.counts(), t.steps(s), t.steps(d));
    for k in 0..c[2] {
        for j in 0..c[1] {
            for i in 0..c[0] {
                let a = t.origin(s) + i * ss[0] + j * ss[1] + k * ss[2];
                let b = t.origin(d) + i * ds[0] + j * ds[1] + k * ds[2];
                f(a, b)?;
            }
        }
    }
    Ok(())
}

/// Calls `f(src, dst)` with the offsets of every combination of the leaves `outer` (an
/// odometer, first leaf fastest).
#[inline(always)]
fn for_outer(outer: &[Leaf], mut f: impl FnMut(u64, u64)) {
    let mut count = [0u64; MAX_JOINT];
    let (mut s, mut d) = (0u64, 0u64);
    'all: loop {
        f(s, d);
        let mut i = 0;
        loop {
            if i == outer.len() {
                break 'all;
            }
            let x = &outer[i];
            count[i] += 1;
            s += x.s;
            d += x.d;
            if count[i] < x.e {
                break;
            }
            s -= x.e * x.s;
            d -= x.e * x.d;
            count[i] = 0;
            i += 1;
        }
    }
}

/// Copies with the loops: the run as one slice move, two leaves as plain loops, the
/// rest by an odometer.
///
/// # Safety
/// `so + loops.src_max < src.len()` and `d_o + loops.dst_max < dst.len()`.
#[inline]
unsafe fn copy_loops<T: Copy>(loops: &Loops, src: &[T], so: usize, dst: &mut [T], d_o: usize) {
    let v = loops.v as usize;
    let l = |i: usize| {
        if i < loops.n {
            loops.leaves[i]
        } else {
            NO_LEAF
        }
    };
    let (a, b) = (l(0), l(1));
    let (ae, as_, ad) = (a.e as usize, a.s as usize, a.d as usize);
    let (be, bs, bd) = (b.e as usize, b.s as usize, b.d as usize);
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    for_outer(&loops.leaves[2.min(loops.n)..loops.n], |os, od| {
        let (s0, d0) = (so + os as usize, d_o + od as usize);
        for j in 0..be {
            let (s1, d1) = (s0 + j * bs, d0 + j * bd);
            if v == 1 {
                for i in 0..ae {
                    // SAFETY: offsets below origin + max, checked by the caller
                    unsafe { *dp.add(d1 + i * ad) = *sp.add(s1 + i * as_) };
                }
            } else {
                for i in 0..ae {
                    // SAFETY: as above; the run's v elements end at most at origin + max
                    unsafe {
                        std::ptr::copy_nonoverlapping(sp.add(s1 + i * as_), dp.add(d1 + i * ad), v)
                    };
                }
            }
        }
    });
}

/// Writes zero bits to every element the loops reach on the destination side.
fn zero_fill<ED: FloatEngineMut>(loops: &Loops, dst: &mut ED, d_o: u64) {
    let (plane, w) = (dst.plane(), ED::WIDTH as u64);
    let v = loops.v;
    // bytes of one run, and leaves that continue it contiguously: one fill for them all
    let (unit, mut span, split) = match plane {
        Some(p) if p as u64 == v => (1, 2 * v, None),
        Some(p) => (1, v, Some(p as u64)),
        None => (w, v * w, None),
    };
    let mut skip = 0;
    while split.is_none() && skip < loops.n && loops.leaves[skip].d * unit == span {
        span *= loops.leaves[skip].e;
        skip += 1;
    }
    let bytes = dst.float_bytes_mut();
    for_outer(&loops.leaves[skip..loops.n], |_, od| {
        let o = ((d_o + od) * unit) as usize;
        bytes[o..o + span as usize].fill(0);
        if let Some(p) = split {
            bytes[o + p as usize..(o as u64 + p + span) as usize].fill(0);
        }
    });
}

/// Bytes a group of `n` elements spans in `fmt` (elements of width `w`).
fn group_bytes(fmt: Fmt, n: u64, w: usize) -> u64 {
    match fmt {
        Fmt::Elements(st) => (n - 1) * st as u64 + w as u64,
        Fmt::Planes(p) => p as u64 + n,
    }
}

/// Converts with the loops through the SIMD conversion routine: the run (or one strided
/// leaf) is a channel group, the next leaves become groups, pixels and the three grid
/// levels of one `convert_grid` call, and any further leaves an outer loop of calls.
#[allow(clippy::too_many_arguments)]
fn convert_loops<S: Elem, D: Elem>(
    path: ConvertPath,
    loops: &Loops,
    valid: Option<u64>,
    src: &[u8],
    splane: Option<usize>,
    so: u64,
    dst: &mut [u8],
    dplane: Option<usize>,
    d_o: u64,
) {
    // a plane group holds at most `plane` elements: split a longer run
    let cap = splane.into_iter().chain(dplane).min().unwrap_or(usize::MAX) as u64;
    let split;
    let loops = if loops.v > cap {
        let mut leaves = [NO_LEAF; MAX_JOINT];
        leaves[0] = Leaf {
            e: loops.v,
            s: 1,
            d: 1,
            mode: NO_MODE,
        };
        leaves[1..=loops.n].copy_from_slice(&loops.leaves[..loops.n]);
        split = loops_of(&leaves[..=loops.n], cap);
        &split
    } else {
        loops
    };
    // byte size of one element-offset unit on each side (planes: bytes)
    let us = if splane.is_some() { 1 } else { S::W as u64 };
    let ud = if dplane.is_some() { 1 } else { D::W as u64 };
    let leaf = |i: usize| {
        if i < loops.n {
            loops.leaves[i]
        } else {
            NO_LEAF
        }
    };
    let fmt_s = |stride: u64| match splane {
        Some(p) => Fmt::Planes(p),
        None => Fmt::Elements((stride * us) as usize),
    };
    let fmt_d = |stride: u64| match dplane {
        Some(p) => Fmt::Planes(p),
        None => Fmt::Elements((stride * ud) as usize),
    };
    let mut next = 0;
    // the innermost group: the common run, or a strided leaf when there is none and no
    // side is byte planes (a plane group must be contiguous)
    let (nrun, sf, df) = if loops.v > 1 || splane.is_some() || dplane.is_some() || loops.n == 0 {
        (loops.v, fmt_s(1), fmt_d(1))
    } else {
        next = 1;
        let x = leaf(0);
        (x.e, fmt_s(x.s), fmt_d(x.d))
    };
    // with `valid`, each run converts its first elements and pads the rest with zeros
    let mut row = Row {
        npix: 1,
        valid: valid.unwrap_or(nrun) as usize,
        slots: nrun as usize,
        pad: valid.is_some(),
    };
    // the levels, innermost first: the leaves after the run, in destination order
    let mut rest = [NO_LEAF; MAX_JOINT];
    let mut nr = 0;
    for i in next..loops.n {
        rest[nr] = leaf(i);
        nr += 1;
    }
    // channel groups: the leaf of smallest source stride whose groups do not overlap,
    // so a pixel's groups are read in one sweep (as the built-in kernels do)
    let (mut sg, mut dg) = (0u64, 0u64);
    let fits = |g: &Leaf| {
        g.s * us >= group_bytes(sf, nrun, S::W) && g.d * ud >= group_bytes(df, nrun, D::W)
    };
    let group = (0..nr)
        .filter(|&k| fits(&rest[k]))
        .min_by_key(|&k| rest[k].s);
    if let (None, Some(k)) = (valid, group) {
        let g = rest[k];
        row.valid = (nrun * g.e) as usize;
        (sg, dg) = (g.s * us, g.d * ud);
        rest.copy_within(k + 1..nr, k);
        nr -= 1;
    }
    let mut at = 0;
    let (mut sp, mut dp) = (0u64, 0u64);
    if at < nr {
        let p = rest[at];
        row.npix = p.e as usize;
        (sp, dp) = (p.s * us, p.d * ud);
        at += 1;
    }
    let mut grid: Grid = [(1, 0, 0); 3];
    for slot in (0..3).rev() {
        if at < nr {
            let x = rest[at];
            grid[slot] = (x.e as usize, (x.s * us) as usize, (x.d * ud) as usize);
            at += 1;
        }
    }
    let s = Side {
        pixel: sp as usize,
        group: sg as usize,
        fmt: sf,
        ahead: 0,
    };
    let d = Side {
        pixel: dp as usize,
        group: dg as usize,
        fmt: df,
        ahead: 0,
    };
    for_outer(&rest[at..nr], |os, od| {
        let (sb, db) = (((so + os) * us) as usize, ((d_o + od) * ud) as usize);
        convert_grid::<S, D>(path, &src[sb..], s, &mut dst[db..], d, row, grid);
    });
}

/// `dst[k] = convert(src[k])` for every key `k`, between tensors of different float
/// value types (f32, f16, bf16 slices and BF16 byte planes): CuTe's converting `copy`,
/// bit-exact with `half` (round to nearest even). Whole runs contiguous in both layouts
/// go through the library's SIMD conversion routine. Makes a [`ConvertPlan`] each call;
/// a tiled kernel makes one plan and calls [`ConvertPlan::convert_at`] per tile.
///
/// ```
/// use half::bf16;
/// use strideweave::layout;
/// use strideweave::tensor::{convert, Tensor};
/// let src: Vec<f32> = (0..32).map(|x| x as f32 * 0.5).collect();
/// let a = Tensor::new(&src[..], layout!((2,16):(16,1))).unwrap();
/// // the bf16 output as byte planes: each row's 16 low bytes, then its 16 high bytes
/// let mut bytes = vec![0u8; 64];
/// let mut b = Tensor::bf16_planes(&mut bytes[..], 16, layout!((2,16):(32,1))).unwrap();
/// convert(&a, &mut b).unwrap();
/// let x = bf16::from_f32(src[17]).to_bits();            // row 1, column 1
/// assert_eq!((bytes[33], bytes[49]), (x as u8, (x >> 8) as u8));
/// ```
pub fn convert<ES: FloatEngine, LS: TensorLayout, ED: FloatEngineMut, LD: TensorLayout>(
    src: &Tensor<ES, LS>,
    dst: &mut Tensor<ED, LD>,
) -> Result<(), LayoutError> {
    let plan = ConvertPlan::new(&src.layout().runtime(), &dst.layout().runtime())?;
    plan.convert_at(src, 0, dst, 0)
}
