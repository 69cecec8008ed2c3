//! The runtime face of the algebra: methods on [`Layout`] that call the `const fn` core
//! in [`crate::algebra`] and turn its failures into messages naming the layouts.

use crate::algebra;
use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{IntTuple, Shape, MAX_LEAVES};
use crate::Layout;
use std::fmt::Write as _;

/// What a layout can be composed with: a [`Layout`], a [`Shape`] (one unit-stride tile per
/// leading mode), or a tiler (`Vec`, array or slice of tile layouts, one per leading mode).
pub trait ComposeWith {
    /// `a ∘ self`.
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError>;
    /// The right operand in notation, for error messages.
    fn notation(&self) -> String;
}

impl ComposeWith for Layout {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        algebra::compose(a, self)
    }
    fn notation(&self) -> String {
        self.to_string()
    }
}

impl ComposeWith for Shape {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        algebra::compose_shape(a, self.as_tuple())
    }
    fn notation(&self) -> String {
        self.to_string()
    }
}

impl ComposeWith for [Layout] {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        algebra::compose_tiler(a, self)
    }
    fn notation(&self) -> String {
        tiler_notation(self)
    }
}

impl<const N: usize> ComposeWith for [Layout; N] {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        algebra::compose_tiler(a, self)
    }
    fn notation(&self) -> String {
        tiler_notation(self)
    }
}

impl ComposeWith for Vec<Layout> {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        algebra::compose_tiler(a, self)
    }
    fn notation(&self) -> String {
        tiler_notation(self)
    }
}

impl<T: ComposeWith + ?Sized> ComposeWith for &T {
    fn compose_onto(&self, a: &Layout) -> Result<Layout, CoreError> {
        (**self).compose_onto(a)
    }
    fn notation(&self) -> String {
        (**self).notation()
    }
}

/// `[L0,L1,...]`, the tiler notation.
pub fn tiler_notation(tiles: &[Layout]) -> String {
    let mut s = String::from("[");
    for (i, t) in tiles.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{t}");
    }
    s.push(']');
    s
}

fn err2(op: &str, a: &Layout, b: impl std::fmt::Display, e: CoreError) -> LayoutError {
    LayoutError::from_core(format!("{op}({a}, {b})"), e)
}

impl Layout {
    /// Functional composition `R(c) = self(B(c))` with a layout, a shape or a tiler.
    ///
    /// Returns CuTe's result whenever CuTe's divisibility conditions hold and an error
    /// naming the failed condition otherwise (CuTe itself only checks them for static
    /// layouts). Along the last mode of `self` the result may index past `size(self)`,
    /// as CuTe allows for padded tilings.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let a: Layout = "20:2".parse().unwrap();
    /// assert_eq!(a.compose(&"(5,4):(4,1)".parse::<Layout>().unwrap()).unwrap().to_string(), "(5,4):(8,2)");
    /// let t: Layout = "(4,6):(1,5)".parse().unwrap();
    /// assert!(t.compose(&"6:1".parse::<Layout>().unwrap()).is_err());
    /// let tiles = ["2:1".parse::<Layout>().unwrap(), "3:1".parse().unwrap()];
    /// assert_eq!(t.compose(&tiles).unwrap(), t.compose(&tiles.to_vec()).unwrap());
    /// assert_eq!(t.compose(&Shape::new((2, 3)).unwrap()).unwrap(), t.compose(&tiles).unwrap());
    /// ```
    pub fn compose<B: ComposeWith + ?Sized>(&self, b: &B) -> Result<Layout, LayoutError> {
        b.compose_onto(self)
            .map_err(|e| LayoutError::from_core(format!("compose({self}, {})", b.notation()), e))
    }

    /// Asks whether [`Layout::compose`] admits `self ∘ b`, with the same error it would give.
    pub fn can_compose<B: ComposeWith + ?Sized>(&self, b: &B) -> Result<(), LayoutError> {
        self.compose(b).map(|_| ())
    }

    /// `complement(self, cotarget)`: the index factors `self` leaves out, so that
    /// `(self, complement)` is injective and spans `[0, cotarget)` (rounded up).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,2):(1,6)".parse().unwrap();
    /// assert_eq!(l.complement(24).unwrap().to_string(), "(3,2):(2,12)");
    /// assert!("(4,2):(1,1)".parse::<strideweave::Layout>().unwrap().complement(8).is_err());
    /// ```
    pub fn complement(&self, cotarget: u64) -> Result<Layout, LayoutError> {
        algebra::complement(self, cotarget).map_err(|e| {
            let e = match e {
                CoreError::Unchainable { .. } if self.provably_not_injective() => {
                    CoreError::NotInjective
                }
                e => e,
            };
            err2("complement", self, cotarget, e)
        })
    }

    /// CuTe's `complement(self, shape)`: the cotarget is a shape, and the last mode of the
    /// complement counts the copies of `self`'s span that cover it left to right,
    /// `size(ceil_div(shape, span))` (the span being where the stride chain of `self` ends).
    /// Otherwise as [`Layout::complement`] with the cotarget `size(shape)`, whose errors it
    /// keeps (`size(self) > size(shape)`, not injective); the layout's shape must also be
    /// weakly congruent with the cotarget (an integer shape of `self` stands for the whole
    /// cotarget), or it is a value error, as the layout specification asks of a cotarget.
    /// For an integer shape, or a span that divides the shape's first items, it is
    /// `complement(self, size(shape))`.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let l: Layout = "2:1".parse().unwrap();
    /// // ceil_div((3,3), 2) is (2,3): six copies of the span 2, not ceil(9/2) = 5
    /// let s = Shape::new((3, 3)).unwrap();
    /// assert_eq!(l.complement_shape(&s).unwrap().to_string(), "6:2");
    /// assert_eq!(l.complement(9).unwrap().to_string(), "5:2");
    /// ```
    pub fn complement_shape(&self, cotarget: &Shape) -> Result<Layout, LayoutError> {
        if !crate::int_tuple_ops::weakly_congruent(self.shape().as_tuple(), cotarget.as_tuple()) {
            return Err(LayoutError::value(format!(
                "complement({self}, {cotarget}): shape {} is not congruent with the cotarget \
                 {cotarget} (each item of the shape must stand for an item of the cotarget)",
                self.shape()
            )));
        }
        let m = cotarget.checked_size().ok_or_else(|| {
            LayoutError::value(format!(
                "complement({self}, {cotarget}): the size of the cotarget overflows 64 bits"
            ))
        })?;
        // the checks of the integer complement (injective, size(self) <= size(shape))
        self.complement(m).map_err(|e| {
            LayoutError::value(e.message().replacen(
                &format!("complement({self}, {m})"),
                &format!("complement({self}, {cotarget})"),
                1,
            ))
        })?;
        // the last mode counts the copies of the span, item by item of the shape
        let what =
            |e: CoreError| LayoutError::from_core(format!("complement({self}, {cotarget})"), e);
        let (_, span) = algebra::complement_span(self).map_err(what)?;
        let rest = IntTuple::new(span)
            .and_then(|s| crate::int_tuple_ops::ceil_div(cotarget.as_tuple(), &s))?
            .product();
        match rest.and_then(|r| r.checked_mul(span)) {
            Some(m) => self.complement(m),
            None => Err(LayoutError::value(format!(
                "complement({self}, {cotarget}): the span of the complement overflows 64 bits"
            ))),
        }
    }

    /// Logical division by one tile: `self ∘ (b, complement(b, size(self)))`.
    ///
    /// ```
    /// let a: strideweave::Layout = "(4,2,3):(2,1,8)".parse().unwrap();
    /// let d = a.divide(&"4:2".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    pub fn divide(&self, b: &Layout) -> Result<Layout, LayoutError> {
        algebra::divide(self, b).map_err(|e| err2("divide", self, b, self.refine(b, e)))
    }

    /// CuTe's name for [`Layout::divide`] (`logical_divide(A, B)`), for code ported from
    /// C++ or the CuTe DSL.
    ///
    /// ```
    /// let a: strideweave::Layout = "(4,2,3):(2,1,8)".parse().unwrap();
    /// let b: strideweave::Layout = "4:2".parse().unwrap();
    /// assert_eq!(a.logical_divide(&b).unwrap(), a.divide(&b).unwrap());
    /// ```
    pub fn logical_divide(&self, b: &Layout) -> Result<Layout, LayoutError> {
        self.divide(b)
    }

    /// Divides each leading mode by its tile, keeping the later modes.
    pub fn divide_tiler(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        algebra::divide_tiler(self, tiles)
            .map_err(|e| err2("divide_tiler", self, tiler_notation(tiles), e))
    }

    /// Divides each leading mode by its unit-stride tile from `shape`.
    pub fn divide_shape(&self, shape: &Shape) -> Result<Layout, LayoutError> {
        algebra::divide_shape(self, shape.as_tuple())
            .map_err(|e| err2("divide_tiler", self, shape, e))
    }

    /// `((tiles...), (rests...), untouched modes...)`.
    ///
    /// ```
    /// use strideweave::Layout;
    /// let a: Layout = "(8,8):(8,1)".parse().unwrap();
    /// let z = a.zipped_divide(&["2:1".parse().unwrap(), "4:1".parse().unwrap()]).unwrap();
    /// assert_eq!(z.to_string(), "((2,4),(4,2)):((8,1),(16,4))");
    /// ```
    pub fn zipped_divide(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        algebra::zipped_divide(self, tiles)
            .map_err(|e| err2("zipped_divide", self, tiler_notation(tiles), e))
    }

    /// `((tiles...), rest0, rest1, ..., untouched modes...)`.
    pub fn tiled_divide(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        algebra::tiled_divide(self, tiles)
            .map_err(|e| err2("tiled_divide", self, tiler_notation(tiles), e))
    }

    /// Merges contiguous leaves; same function on `0..size`, flat result.
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
    /// assert_eq!(l.coalesce().to_string(), "12:1");
    /// ```
    pub fn coalesce(&self) -> Layout {
        algebra::coalesce(self)
    }

    /// [`Layout::coalesce`] after dropping stride-0 (broadcast) leaves.
    pub fn filter(&self) -> Layout {
        algebra::filter(self)
    }

    /// `R` with `self(R(i)) == i` for every `i < size(R)`, as large as the strides allow.
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,2):(2,1)".parse().unwrap();
    /// let r = l.right_inverse().unwrap();
    /// for i in 0..r.size() { assert_eq!(l.index_of(r.index_of(i).unwrap()).unwrap(), i); }
    /// ```
    pub fn right_inverse(&self) -> Result<Layout, LayoutError> {
        algebra::right_inverse(self)
            .map_err(|e| LayoutError::from_core(format!("right_inverse({self})"), e))
    }

    /// `R` with `R(self(i)) == i` for every `i < size(self)`; `self` must be injective.
    pub fn left_inverse(&self) -> Result<Layout, LayoutError> {
        algebra::left_inverse(self).map_err(|e| {
            let e = match e {
                CoreError::Unchainable { .. } if self.provably_not_injective() => {
                    CoreError::NotInjective
                }
                e => e,
            };
            LayoutError::from_core(format!("left_inverse({self})"), e)
        })
    }

    /// `(self, complement(self, size*cosize(b)) ∘ b)`.
    ///
    /// ```
    /// let a: strideweave::Layout = "(2,2):(1,2)".parse().unwrap();
    /// assert_eq!(a.logical_product(&"3:1".parse().unwrap()).unwrap().to_string(), "((2,2),3):((1,2),4)");
    /// ```
    ///
    /// Where CuTe's result would put copies of A onto A (possible only when
    /// `size(A)*cosize(B)` does not exceed A's span) and both operands are injective, this
    /// fails with [`CoreError::ProductOverlap`] instead; the same holds for the blocked and
    /// raked products.
    pub fn logical_product(&self, b: &Layout) -> Result<Layout, LayoutError> {
        algebra::logical_product(self, b)
            .and_then(|p| self.check_product(b, p))
            .map_err(|e| err2("logical_product", self, b, e))
    }

    /// Rejects a product whose copies of `self` overlap one another or `self` (CuTe's
    /// result would put two elements in one place that B keeps apart): for an injective
    /// B, `(filter(self), copies)` must be injective. Decided exactly, and only in the one
    /// case where it can fail. Broadcast modes of `self` are its own and are allowed.
    fn check_product(&self, b: &Layout, p: Layout) -> Result<Layout, CoreError> {
        let undecided = |_| CoreError::InjectivityUndecided {
            steps: crate::INJECTIVITY_SEARCH_STEPS,
        };
        let steps = crate::INJECTIVITY_SEARCH_STEPS;
        if let Some(q) = algebra::product_overlap_witness(self, b)? {
            if b.bounded_injective(steps).map_err(undecided)?
                && !q.bounded_injective(steps).map_err(undecided)?
            {
                return Err(algebra::product_overlap(self, b));
            }
        }
        Ok(p)
    }

    /// [`Layout::logical_product`] by mode.
    pub fn logical_product_tiler(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        self.checked_product_tiler(tiles)
            .map_err(|e| err2("logical_product", self, tiler_notation(tiles), e))
    }

    /// [`Layout::logical_product_tiler`] with the core error, for the arranged products
    /// to report under their own names.
    pub(crate) fn checked_product_tiler(&self, tiles: &[Layout]) -> Result<Layout, CoreError> {
        let p = algebra::logical_product_tiler(self, tiles)?;
        for (i, t) in tiles.iter().enumerate() {
            self.mode(i)?.check_product(t, p.mode(i)?)?;
        }
        Ok(p)
    }

    /// Blocks of `self` arranged as `b` says: mode `i` is `(self_i, b_i)`.
    ///
    /// ```
    /// let a: strideweave::Layout = "(2,2):(2,1)".parse().unwrap();
    /// let b: strideweave::Layout = "(2,3):(3,1)".parse().unwrap();
    /// assert_eq!(a.blocked_product(&b).unwrap().to_string(), "((2,2),(2,3)):((2,12),(1,4))");
    /// ```
    pub fn blocked_product(&self, b: &Layout) -> Result<Layout, LayoutError> {
        algebra::blocked_product(self, b)
            .and_then(|p| self.check_product(b, p))
            .map_err(|e| err2("blocked_product", self, b, e))
    }

    /// `self`'s elements interleaved across `b`'s copies: mode `i` is `(b_i, self_i)`.
    pub fn raked_product(&self, b: &Layout) -> Result<Layout, LayoutError> {
        algebra::raked_product(self, b)
            .and_then(|p| self.check_product(b, p))
            .map_err(|e| err2("raked_product", self, b, e))
    }

    /// Every top-level mode of `self`, then every top-level mode of `other`.
    ///
    /// ```
    /// let a: strideweave::Layout = "(1,2):(0,1)".parse().unwrap();
    /// let b: strideweave::Layout = "(3,4):(2,6)".parse().unwrap();
    /// assert_eq!(a.concat(&b).unwrap().shape().to_string(), "(1,2,3,4)");
    /// assert_eq!(a.append(&b).unwrap().shape().to_string(), "(1,2,(3,4))");
    /// assert_eq!((a + b).unwrap(), a.concat(&b).unwrap());
    /// ```
    pub fn concat(&self, other: &Layout) -> Result<Layout, LayoutError> {
        let mut r = *self;
        r.push_modes(other)
            .and_then(|_| r.validated())
            .map_err(|e| err2("concat", self, other, e))
    }

    /// `self`'s modes followed by `other` as one mode (nested unless it is a leaf).
    pub fn append(&self, other: &Layout) -> Result<Layout, LayoutError> {
        let mut r = *self;
        r.push_mode(other)
            .and_then(|_| r.validated())
            .map_err(|e| err2("append", self, other, e))
    }

    /// Top-level mode `i`, hierarchy kept.
    pub fn get(&self, i: usize) -> Result<Layout, LayoutError> {
        self.mode(i)
            .map_err(|e| LayoutError::from_core(format!("get({self}, {i})"), e))
    }

    /// Top-level modes `start..end`.
    pub fn slice(&self, start: usize, end: usize) -> Result<Layout, LayoutError> {
        if start > end {
            return Err(LayoutError::value(format!(
                "get({self}, {start}, {end}): the range [{start}, {end}) is reversed"
            )));
        }
        self.modes(start, end)
            .map_err(|e| LayoutError::from_core(format!("get({self}, {start}, {end})"), e))
    }

    /// Reorders whole top-level modes: mode `j` of the result is mode `order[j]` of `self`.
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,(3,4),5):(1,(2,6),24)".parse().unwrap();
    /// assert_eq!(l.permute(&[1, 0, 2]).unwrap().to_string(), "((3,4),2,5):((2,6),1,24)");
    /// assert!(l.permute(&[0, 0, 2]).is_err());
    /// ```
    pub fn permute(&self, order: &[usize]) -> Result<Layout, LayoutError> {
        let rank = self.rank();
        let ctx = || format!("permute({self}, {})", crate::layout_ops::mode_list(order));
        if order.len() != rank {
            return Err(LayoutError::value(format!(
                "{}: the order names {} modes but the layout has rank {rank}",
                ctx(),
                order.len()
            )));
        }
        let mut seen = [false; MAX_LEAVES];
        for &o in order {
            if o >= rank {
                return Err(LayoutError::value(format!(
                    "{}: mode {o} is out of range for rank {rank}",
                    ctx()
                )));
            }
            if seen[o] {
                return Err(LayoutError::value(format!(
                    "{}: mode {o} appears more than once",
                    ctx()
                )));
            }
            seen[o] = true;
        }
        let mut r = Layout::EMPTY;
        for &o in order {
            r.push_item_of(self, o)
                .map_err(|e| LayoutError::from_core(ctx(), e))?;
        }
        Ok(r)
    }

    /// Widens extent-1 leaves to the target's extents (stride becomes 0); the target must
    /// have the same profile and every other extent must already match.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let l: Layout = "(2,(1,3)):(1,(2,2))".parse().unwrap();
    /// let b = l.broadcast_to(&Shape::new((2, (4, 3))).unwrap()).unwrap();
    /// assert_eq!(b.to_string(), "(2,(4,3)):(1,(0,2))");
    /// ```
    pub fn broadcast_to(&self, target: &Shape) -> Result<Layout, LayoutError> {
        let t = target.as_tuple();
        let ctx = || format!("broadcast_to({self}, {target})");
        if !self.shape_tuple().congruent(t) {
            return Err(LayoutError::value(format!(
                "{}: shape profiles differ ({} vs {})",
                ctx(),
                self.shape(),
                target
            )));
        }
        self.broadcast_tuple(t)
            .map_err(|e| LayoutError::from_core(ctx(), e))
    }

    /// `const` core of [`Layout::broadcast_to`] on a raw target tree, shared with static
    /// layouts: [`CoreError::ProfileMismatch`] or [`CoreError::BroadcastExtent`] on failure.
    pub const fn broadcast_tuple(&self, target: &IntTuple) -> Result<Layout, CoreError> {
        if !self.shape_tuple().congruent(target) {
            return Err(CoreError::ProfileMismatch);
        }
        let mut stride = *self.stride_tuple();
        let mut i = 0;
        while i < self.leaf_count() {
            let (from, to) = (self.leaf_extent(i), target.leaf(i));
            if from != to {
                if from != 1 {
                    return Err(CoreError::BroadcastExtent { from, to });
                }
                stride.set_leaf(i, 0);
            }
            i += 1;
        }
        Layout::from_trees(*target, stride)
    }

    fn refine(&self, b: &Layout, e: CoreError) -> CoreError {
        match e {
            CoreError::Unchainable { .. } if b.provably_not_injective() => CoreError::NotInjective,
            e => e,
        }
    }
}

impl std::ops::Add for Layout {
    type Output = Result<Layout, LayoutError>;
    /// `a + b` is [`Layout::concat`].
    fn add(self, rhs: Layout) -> Self::Output {
        self.concat(&rhs)
    }
}

impl std::ops::Add for &Layout {
    type Output = Result<Layout, LayoutError>;
    fn add(self, rhs: &Layout) -> Self::Output {
        self.concat(rhs)
    }
}
