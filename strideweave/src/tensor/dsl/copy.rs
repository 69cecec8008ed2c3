//! `copy`, `copy_if`, `fill` and `transform`: element-wise algorithms that ask the two
//! layouts for their longest common contiguous run (CuTe's `max_common_vector`) and move
//! whole runs at once, falling back to element loops.
//!
//! The plan (run length and where each run starts) is computed by the compiler when
//! both layouts are static, and once per call (or once per [`CopyPlan`]) otherwise.

use super::addressing::TensorLayout;
use super::base::Tensor;
use super::engine::{Engine, EngineMut};
use crate::error::LayoutError;
use crate::{algebra, Layout, MAX_LEAVES};

/// A layout's leaves, coalesced: walks the same offsets in the same key order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Leaves {
    n: usize,
    ext: [u64; MAX_LEAVES],
    str: [u64; MAX_LEAVES],
}

impl Leaves {
    pub(crate) const fn of(l: &Layout) -> Leaves {
        let c = algebra::coalesce(l);
        let mut r = Leaves {
            n: c.leaf_count(),
            ext: [1; MAX_LEAVES],
            str: [0; MAX_LEAVES],
        };
        let mut i = 0;
        while i < c.leaf_count() {
            r.ext[i] = c.leaf_extent(i);
            r.str[i] = c.leaf_stride(i);
            i += 1;
        }
        r
    }
}

/// Offsets of consecutive keys of a [`Leaves`], one add per step (an odometer).
pub(crate) struct Walk<'a> {
    leaves: &'a Leaves,
    count: [u64; MAX_LEAVES],
    pub(crate) offset: u64,
}

impl<'a> Walk<'a> {
    pub(crate) fn new(leaves: &'a Leaves) -> Self {
        Walk {
            leaves,
            count: [0; MAX_LEAVES],
            offset: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        let l = self.leaves;
        let mut i = 0;
        while i < l.n {
            self.count[i] += 1;
            self.offset += l.str[i];
            if self.count[i] < l.ext[i] {
                return;
            }
            self.offset -= l.ext[i] * l.str[i];
            self.count[i] = 0;
            i += 1;
        }
    }

    /// Moves `n` keys on, `n` dividing the first extent (`Leaves::inner_with`).
    #[inline(always)]
    fn advance_by(&mut self, n: u64) {
        let l = self.leaves;
        if l.n == 0 {
            return;
        }
        self.count[0] += n;
        self.offset += n * l.str[0];
        if self.count[0] < l.ext[0] {
            return;
        }
        self.offset -= l.ext[0] * l.str[0];
        self.count[0] = 0;
        let mut i = 1;
        while i < l.n {
            self.count[i] += 1;
            self.offset += l.str[i];
            if self.count[i] < l.ext[i] {
                return;
            }
            self.offset -= l.ext[i] * l.str[i];
            self.count[i] = 0;
            i += 1;
        }
    }
}

impl Leaves {
    pub(crate) const EMPTY: Leaves = Leaves {
        n: 0,
        ext: [1; MAX_LEAVES],
        str: [0; MAX_LEAVES],
    };

    /// The longest inner loop both walks can take with fixed strides: the gcd of the two
    /// first extents, and the two first strides.
    #[inline(always)]
    const fn inner_with(&self, other: &Leaves) -> (u64, u64, u64) {
        if self.n == 0 || other.n == 0 {
            return (1, 0, 0);
        }
        let (mut a, mut b) = (self.ext[0], other.ext[0]);
        while b != 0 {
            let t = a % b;
            a = b;
            b = t;
        }
        (a, self.str[0], other.str[0])
    }
}

/// One run of a copy: a loop the compiler turns into one move for a known length.
#[inline(always)]
fn copy_run<T: Copy>(s: &[T], d: &mut [T]) {
    for (x, y) in s.iter().zip(d.iter_mut()) {
        *y = *x;
    }
}

/// How to move the elements of one layout into another of the same size: `runs` runs of
/// `vector` contiguous elements on both sides, run `r` starting at `src(r)` and `dst(r)`.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::CopyPlan;
/// let rows: Layout = "(4,8):(8,1)".parse().unwrap();
/// let tile: Layout = "(4,8):(16,1)".parse().unwrap();
/// let plan = CopyPlan::new(&rows, &tile).unwrap();
/// assert_eq!((plan.vector(), plan.runs()), (8, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyPlan {
    src_layout: Layout,
    dst_layout: Layout,
    vector: u64,
    runs: u64,
    src: Leaves,
    dst: Leaves,
}

/// The plan, or `None` when the sizes differ.
const fn make_plan(src: &Layout, dst: &Layout) -> Option<CopyPlan> {
    if src.size() != dst.size() {
        return None;
    }
    let v = algebra::max_common_vector(src, dst);
    if v > 1 {
        let keys = algebra::max_common_layout(src, dst);
        if let (Ok(ds), Ok(dd)) = (algebra::divide(src, &keys), algebra::divide(dst, &keys)) {
            if let (Ok(s0), Ok(s1), Ok(d0), Ok(d1)) =
                (ds.mode(0), ds.mode(1), dd.mode(0), dd.mode(1))
            {
                let (cs, cd) = (algebra::coalesce(&s0), algebra::coalesce(&d0));
                // the runs must be exactly v contiguous elements on both sides, and the
                // runs must cover the keys once (no padding)
                if cs.leaf_count() == 1
                    && cs.leaf_extent(0) == v
                    && cs.leaf_stride(0) == 1
                    && cd.leaf_count() == 1
                    && cd.leaf_extent(0) == v
                    && cd.leaf_stride(0) == 1
                    && ds.size() == src.size()
                    && dd.size() == dst.size()
                {
                    return Some(CopyPlan {
                        src_layout: *src,
                        dst_layout: *dst,
                        vector: v,
                        runs: s1.size(),
                        src: Leaves::of(&s1),
                        dst: Leaves::of(&d1),
                    });
                }
            }
        }
    }
    Some(CopyPlan {
        src_layout: *src,
        dst_layout: *dst,
        vector: 1,
        runs: src.size(),
        src: Leaves::of(src),
        dst: Leaves::of(dst),
    })
}

fn size_mismatch(op: &str, src: &Layout, dst: &Layout) -> LayoutError {
    LayoutError::value(format!(
        "{op}: source {src} has {} elements but destination {dst} has {}",
        src.size(),
        dst.size()
    ))
}

impl CopyPlan {
    /// The plan for moving `src`'s elements (key order) into `dst`'s; the sizes must match.
    pub fn new(src: &Layout, dst: &Layout) -> Result<CopyPlan, LayoutError> {
        make_plan(src, dst).ok_or_else(|| size_mismatch("copy", src, dst))
    }

    /// Elements moved at once (CuTe's `max_common_vector`, after checking the runs).
    pub fn vector(&self) -> u64 {
        self.vector
    }

    /// Number of runs.
    pub fn runs(&self) -> u64 {
        self.runs
    }

    #[inline]
    fn check(&self, src: &impl TensorLayout, dst: &impl TensorLayout) -> Result<(), LayoutError> {
        if !src.same_as(&self.src_layout) || !dst.same_as(&self.dst_layout) {
            return Err(LayoutError::value(format!(
                "copy plan for {} -> {} used with {} -> {}",
                self.src_layout,
                self.dst_layout,
                src.runtime(),
                dst.runtime()
            )));
        }
        Ok(())
    }

    /// Runs `f` on each pair of runs, walking run starts with odometers.
    #[inline(always)]
    fn for_each_run<S, D>(&self, src: &[S], dst: &mut [D], mut f: impl FnMut(&[S], &mut [D])) {
        let v = self.vector as usize;
        let (inner, ss, ds) = self.src.inner_with(&self.dst);
        let (mut ws, mut wd) = (Walk::new(&self.src), Walk::new(&self.dst));
        if v == 1 {
            // single elements: slices of a length the compiler knows, so `f` is one move
            for _ in 0..self.runs / inner {
                let (bs, bd) = (ws.offset as usize, wd.offset as usize);
                for i in 0..inner as usize {
                    let (so, d_o) = (bs + i * ss as usize, bd + i * ds as usize);
                    // SAFETY: offsets of in-domain keys, below cosize <= len
                    let (s, d) = unsafe { (src.get_unchecked(so), dst.get_unchecked_mut(d_o)) };
                    f(std::slice::from_ref(s), std::slice::from_mut(d));
                }
                ws.advance_by(inner);
                wd.advance_by(inner);
            }
            return;
        }
        for _ in 0..self.runs / inner {
            let (bs, bd) = (ws.offset as usize, wd.offset as usize);
            for i in 0..inner as usize {
                let (so, d_o) = (bs + i * ss as usize, bd + i * ds as usize);
                // SAFETY: run r covers offsets src(r)..src(r)+v, all images of in-domain
                // keys, so below cosize <= len (checked when the tensors were made)
                let (s, d) = unsafe {
                    (
                        src.get_unchecked(so..so + v),
                        dst.get_unchecked_mut(d_o..d_o + v),
                    )
                };
                f(s, d);
            }
            ws.advance_by(inner);
            wd.advance_by(inner);
        }
    }

    /// `dst = src` element-wise by key, with this plan (the tensors' layouts must be the
    /// planned ones).
    #[inline(always)]
    pub fn copy<
        T: Copy,
        ES: Engine<Elem = T>,
        LS: TensorLayout,
        ED: EngineMut<Elem = T>,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        dst: &mut Tensor<ED, LD>,
    ) -> Result<(), LayoutError> {
        self.check(src.layout(), dst.layout())?;
        self.for_each_run(src.data(), dst.data_mut(), copy_run);
        Ok(())
    }

    /// `dst = f(src)` element-wise by key, with this plan.
    #[inline(always)]
    pub fn transform<
        S: Copy,
        D,
        ES: Engine<Elem = S>,
        LS: TensorLayout,
        ED: EngineMut<Elem = D>,
        LD: TensorLayout,
    >(
        &self,
        src: &Tensor<ES, LS>,
        dst: &mut Tensor<ED, LD>,
        mut f: impl FnMut(S) -> D,
    ) -> Result<(), LayoutError> {
        self.check(src.layout(), dst.layout())?;
        self.for_each_run(src.data(), dst.data_mut(), |s, d| {
            for (x, y) in s.iter().zip(d.iter_mut()) {
                *y = f(*x);
            }
        });
        Ok(())
    }
}

/// The plan of two layout types, computed by the compiler when both are static.
struct StaticPlan<LS, LD>(std::marker::PhantomData<(LS, LD)>);

impl<LS: TensorLayout, LD: TensorLayout> StaticPlan<LS, LD> {
    const PLAN: Option<CopyPlan> = match (LS::STATIC, LD::STATIC) {
        (Some(s), Some(d)) => make_plan(&s, &d),
        _ => None,
    };
    // The plan's numbers as separate small constants: read one by one, they fold into
    // the loops (a whole `CopyPlan` constant would be copied to the stack and read back).
    const IS_STATIC: bool = Self::PLAN.is_some();
    const PARTS: (u64, u64, u64, u64, u64) = match Self::PLAN {
        Some(p) => {
            let (inner, ss, ds) = p.src.inner_with(&p.dst);
            (p.vector, p.runs, inner, ss, ds)
        }
        None => (1, 0, 1, 0, 0),
    };
    const SRC: Leaves = match Self::PLAN {
        Some(p) => p.src,
        None => Leaves::EMPTY,
    };
    const DST: Leaves = match Self::PLAN {
        Some(p) => p.dst,
        None => Leaves::EMPTY,
    };
    const SRC_N: usize = Self::SRC.n;
    const DST_N: usize = Self::DST.n;
    const SRC_EXT: [u64; MAX_LEAVES] = Self::SRC.ext;
    const SRC_STR: [u64; MAX_LEAVES] = Self::SRC.str;
    const DST_EXT: [u64; MAX_LEAVES] = Self::DST.ext;
    const DST_STR: [u64; MAX_LEAVES] = Self::DST.str;

    /// Offsets of run `r` on both sides, from constants only.
    #[inline(always)]
    fn starts(r: u64) -> (usize, usize) {
        let (mut rs, mut rd, mut os, mut od) = (r, r, 0, 0);
        let mut i = 0;
        while i < Self::SRC_N {
            os += (rs % Self::SRC_EXT[i]) * Self::SRC_STR[i];
            rs /= Self::SRC_EXT[i];
            i += 1;
        }
        let mut j = 0;
        while j < Self::DST_N {
            od += (rd % Self::DST_EXT[j]) * Self::DST_STR[j];
            rd /= Self::DST_EXT[j];
            j += 1;
        }
        (os as usize, od as usize)
    }
}

/// Runs `f` on matching runs of `src` and `dst`: with the compiler's plan when both
/// layouts are static (run starts computed from constants, so loops unroll and fold),
/// otherwise with a plan made now.
#[inline(always)]
fn with_runs<S, D, LS: TensorLayout, LD: TensorLayout>(
    op: &str,
    src_layout: &LS,
    dst_layout: &LD,
    src: &[S],
    dst: &mut [D],
    mut f: impl FnMut(&[S], &mut [D]),
) -> Result<(), LayoutError> {
    if StaticPlan::<LS, LD>::IS_STATIC {
        // every number here is a constant: the loops unroll and the offsets fold
        let (v, runs, inner, ss, ds) = StaticPlan::<LS, LD>::PARTS;
        let v = v as usize;
        for o in 0..runs / inner {
            let (bs, bd) = StaticPlan::<LS, LD>::starts(o * inner);
            for i in 0..inner as usize {
                let (so, d_o) = (bs + i * ss as usize, bd + i * ds as usize);
                // SAFETY: as in `for_each_run`: run starts plus v stay below the cosizes
                let (s, d) = unsafe {
                    (
                        src.get_unchecked(so..so + v),
                        dst.get_unchecked_mut(d_o..d_o + v),
                    )
                };
                f(s, d);
            }
        }
        return Ok(());
    }
    let (ls, ld) = (src_layout.runtime(), dst_layout.runtime());
    match make_plan(&ls, &ld) {
        Some(p) => {
            p.for_each_run(src, dst, f);
            Ok(())
        }
        None => Err(size_mismatch(op, &ls, &ld)),
    }
}

/// `dst[k] = src[k]` for every key `k`, whole contiguous runs at a time. The sizes must
/// match (an error naming both otherwise); the shapes may differ.
///
/// ```
/// use strideweave::{layout, Layout};
/// use strideweave::tensor::{copy, Tensor};
/// let src: Vec<f32> = (0..32).map(|x| x as f32).collect();
/// let a = Tensor::new(&src[..], layout!((4,8):(8,1))).unwrap();         // row-major
/// let mut out = vec![0.0f32; 32];
/// let mut b = Tensor::new(&mut out[..], layout!((4,8):(1,4))).unwrap(); // column-major
/// copy(&a, &mut b).unwrap();
/// assert_eq!(*b.at((3, 5)), 29.0);
/// assert_eq!(out[4 * 5 + 3], 29.0);
/// ```
#[inline(always)]
pub fn copy<
    T: Copy,
    ES: Engine<Elem = T>,
    LS: TensorLayout,
    ED: EngineMut<Elem = T>,
    LD: TensorLayout,
>(
    src: &Tensor<ES, LS>,
    dst: &mut Tensor<ED, LD>,
) -> Result<(), LayoutError> {
    let (ls, ld) = (*src.layout(), *dst.layout());
    with_runs("copy", &ls, &ld, src.data(), dst.data_mut(), copy_run)
}

/// `dst[k] = f(src[k])` for every key `k`, run by run, so `f` is applied to whole
/// contiguous slices the compiler can vectorize (e.g. f32 to bf16 through `half`).
///
/// ```
/// use half::bf16;
/// use strideweave::layout;
/// use strideweave::tensor::{transform, Tensor};
/// let src = [1.0f32, 2.5, -3.0, 0.1];
/// let mut out = [bf16::ZERO; 4];
/// let a = Tensor::new(&src[..], layout!(4:1)).unwrap();
/// let mut b = Tensor::new(&mut out[..], layout!(4:1)).unwrap();
/// transform(&a, &mut b, bf16::from_f32).unwrap();
/// assert_eq!(out[1], bf16::from_f32(2.5));
/// ```
#[inline(always)]
pub fn transform<
    S: Copy,
    D,
    ES: Engine<Elem = S>,
    LS: TensorLayout,
    ED: EngineMut<Elem = D>,
    LD: TensorLayout,
>(
    src: &Tensor<ES, LS>,
    dst: &mut Tensor<ED, LD>,
    mut f: impl FnMut(S) -> D,
) -> Result<(), LayoutError> {
    let (ls, ld) = (*src.layout(), *dst.layout());
    with_runs("transform", &ls, &ld, src.data(), dst.data_mut(), |s, d| {
        for (x, y) in s.iter().zip(d.iter_mut()) {
            *y = f(*x);
        }
    })
}

/// `dst[k] = value` for every key `k`, whole contiguous runs at a time.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{fill, Tensor};
/// let mut data = [0u8; 8];
/// let mut t = Tensor::new(&mut data[..], "(2,2):(1,4)".parse::<Layout>().unwrap()).unwrap();
/// fill(&mut t, 9);
/// assert_eq!(data, [9, 9, 0, 0, 9, 9, 0, 0]);
/// ```
#[inline(always)]
pub fn fill<T: Copy, E: EngineMut<Elem = T>, L: TensorLayout>(dst: &mut Tensor<E, L>, value: T) {
    let l = *dst.layout();
    let data = dst.data_mut();
    // a plan of the layout with itself: runs are its contiguous stretches
    if StaticPlan::<L, L>::IS_STATIC {
        let (v, runs, _, _, _) = StaticPlan::<L, L>::PARTS;
        let v = v as usize;
        for r in 0..runs {
            let (_, o) = StaticPlan::<L, L>::starts(r);
            // SAFETY: run starts plus v stay below the cosize <= len
            unsafe { data.get_unchecked_mut(o..o + v) }.fill(value);
        }
        return;
    }
    let rl = l.runtime();
    if let Some(p) = make_plan(&rl, &rl) {
        let v = p.vector as usize;
        let mut w = Walk::new(&p.dst);
        for _ in 0..p.runs {
            let o = w.offset as usize;
            // SAFETY: as above
            unsafe { data.get_unchecked_mut(o..o + v) }.fill(value);
            w.advance();
        }
    }
}

/// `dst[k] = src[k]` for every key `k` with `pred(k)`: the masked copy of an edge tile
/// (pass `|k| coords.in_bounds(k)` with an [`IdentityTensor`](super::IdentityTensor)
/// tiled like the data). Elements whose predicate is false are not read or written.
///
/// ```
/// use strideweave::Layout;
/// use strideweave::tensor::{copy_if, Tensor};
/// let src = [1, 2, 3, 4];
/// let mut out = [0; 4];
/// let l: Layout = "4:1".parse().unwrap();
/// copy_if(|k| k % 2 == 0, &Tensor::new(&src[..], l).unwrap(), &mut Tensor::new(&mut out[..], l).unwrap()).unwrap();
/// assert_eq!(out, [1, 0, 3, 0]);
/// ```
pub fn copy_if<
    T: Copy,
    ES: Engine<Elem = T>,
    LS: TensorLayout,
    ED: EngineMut<Elem = T>,
    LD: TensorLayout,
>(
    mut pred: impl FnMut(u64) -> bool,
    src: &Tensor<ES, LS>,
    dst: &mut Tensor<ED, LD>,
) -> Result<(), LayoutError> {
    transform_if(&mut pred, src, dst, |x| x)
}

/// `dst[k] = f(src[k])` for every key `k` with `pred(k)` (a masked [`transform`]).
///
/// ```
/// use strideweave::layout;
/// use strideweave::tensor::{transform_if, Tensor};
/// let src = [1.0f32, 2.0, 3.0, 4.0];
/// let mut out = [0i32; 4];
/// let l = layout!(4:1);
/// transform_if(|k| k >= 2, &Tensor::new(&src[..], l).unwrap(), &mut Tensor::new(&mut out[..], l).unwrap(), |x| x as i32 * 10).unwrap();
/// assert_eq!(out, [0, 0, 30, 40]);
/// ```
pub fn transform_if<
    S: Copy,
    D,
    ES: Engine<Elem = S>,
    LS: TensorLayout,
    ED: EngineMut<Elem = D>,
    LD: TensorLayout,
>(
    mut pred: impl FnMut(u64) -> bool,
    src: &Tensor<ES, LS>,
    dst: &mut Tensor<ED, LD>,
    mut f: impl FnMut(S) -> D,
) -> Result<(), LayoutError> {
    let (ls, ld) = (src.layout().runtime(), dst.layout().runtime());
    if ls.size() != ld.size() {
        return Err(size_mismatch("copy_if", &ls, &ld));
    }
    let (ps, pd) = (Leaves::of(&ls), Leaves::of(&ld));
    let (mut ws, mut wd) = (Walk::new(&ps), Walk::new(&pd));
    let (s, d) = (src.data(), dst.data_mut());
    for k in 0..ls.size() {
        if pred(k) {
            // SAFETY: offsets of in-domain keys, below the cosizes <= lengths
            unsafe {
                *d.get_unchecked_mut(wd.offset as usize) = f(*s.get_unchecked(ws.offset as usize))
            };
        }
        ws.advance();
        wd.advance();
    }
    Ok(())
}
