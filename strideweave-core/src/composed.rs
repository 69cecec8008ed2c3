//! Swizzled layouts: CuTe's `ComposedLayout` `Sw o offset o L`, the function
//! `c -> Sw(offset + L(c))`. The layout `L` gives the domain (shape, size, hierarchy);
//! tiling, dividing and composing with a tiler act on `L` and keep the swizzle, which is
//! how CuTe tiles a swizzled shared-memory layout.
//!
//! ```
//! use strideweave::{ComposedLayout, Coord, Layout, Swizzle};
//! let l: Layout = "(8,64):(64,1)".parse().unwrap();
//! let s = ComposedLayout::new(Swizzle::new(3, 4, 3).unwrap(), 0, l).unwrap();
//! assert_eq!(s.to_string(), "Sw<3,4,3> o (8,64):(64,1)");
//! // row 1, column 16: L gives 80 = 0b1010000; bit 7..9 are 0, so nothing flips
//! assert_eq!(s.index(&Coord::new((1, 16)).unwrap()).unwrap(), 80);
//! // row 2, column 0: L gives 128 = 0b10000000; bit 7 flips bit 4
//! assert_eq!(s.index(&Coord::new((2, 0)).unwrap()).unwrap(), 128 + 16);
//! let tile = s.compose(&[Layout::leaf(8, 1).unwrap(), Layout::leaf(8, 1).unwrap()]).unwrap();
//! assert_eq!(tile.to_string(), "Sw<3,4,3> o (8,8):(64,1)");
//! ```

use crate::error::LayoutError;
use crate::int_tuple::{Coord, Shape};
use crate::ops::ComposeWith;
use crate::{Layout, Swizzle};
use std::fmt;

/// Most domain points [`ComposedLayout::right_inverse`], [`ComposedLayout::left_inverse`]
/// and [`compose_layout_swizzle`] evaluate to prove their result (2^20). CuTe returns the
/// result unchecked; StrideWeave returns it only when it is the inverse (or the
/// composition) it claims to be, and an error naming this limit above it.
pub const VERIFY_MAX_POINTS: u64 = 1 << 20;

/// `Sw o offset o L`: the swizzle of the offset index `offset + L(c)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComposedLayout {
    swizzle: Swizzle,
    offset: u64,
    layout: Layout,
}

impl ComposedLayout {
    /// `Sw o offset o L`; fails when `offset + cosize(L) - 1` does not fit in `u64`.
    pub fn new(swizzle: Swizzle, offset: u64, layout: Layout) -> Result<Self, LayoutError> {
        if offset.checked_add(layout.cosize() - 1).is_none() {
            return Err(LayoutError::value(format!(
                "offset {offset} plus the largest index {} of {layout} overflows 64 bits",
                layout.cosize() - 1
            )));
        }
        Ok(ComposedLayout {
            swizzle,
            offset,
            layout,
        })
    }

    /// CuTe's `composition(Swizzle, Layout)`: `Sw o 0 o L`.
    pub fn swizzled(swizzle: Swizzle, layout: Layout) -> Self {
        ComposedLayout {
            swizzle,
            offset: 0,
            layout,
        }
    }

    /// The swizzle (CuTe's `layout_a()` and `get_swizzle_portion`).
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The offset added before swizzling.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The layout `L` (CuTe's `layout_b()` and `get_nonswizzle_portion`).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// CuTe's `get_swizzle_portion`: the swizzle.
    ///
    /// ```
    /// use strideweave::ComposedLayout;
    /// let s: ComposedLayout = "Sw<2,0,-3> o (8,8):(8,1)".parse().unwrap();
    /// assert_eq!(s.swizzle_portion().to_string(), "Sw<2,0,-3>");
    /// assert_eq!(s.nonswizzle_portion().to_string(), "(8,8):(8,1)");
    /// ```
    pub fn swizzle_portion(&self) -> Swizzle {
        self.swizzle
    }

    /// CuTe's `get_nonswizzle_portion`: the layout `L`.
    pub fn nonswizzle_portion(&self) -> Layout {
        self.layout
    }

    /// Whether the swizzle is the identity and the offset 0, so this is just `L`
    /// (CuTe's `composition(Swizzle<0,M,S>, _0, L)` returns `L` itself).
    pub fn is_plain(&self) -> bool {
        self.swizzle.is_identity() && self.offset == 0
    }

    /// The shape of `L`.
    pub fn shape(&self) -> Shape {
        self.layout.shape()
    }

    /// Size of `L`: the number of coordinates.
    pub fn size(&self) -> u64 {
        self.layout.size()
    }

    /// CuTe's `cosize` of a composed layout: the cosize of `L`.
    pub fn cosize(&self) -> u64 {
        self.layout.cosize()
    }

    /// Rank of `L`.
    pub fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// Depth of `L`.
    pub fn depth(&self) -> usize {
        self.layout.depth()
    }

    /// `Sw(offset + L(c))` for a hierarchical coordinate or an integer key.
    pub fn index(&self, coord: &Coord) -> Result<u64, LayoutError> {
        // `new` checked that offset + any index of L fits
        Ok(self.swizzle.apply(self.offset + self.layout.index(coord)?))
    }

    /// `Sw(offset + L(i))` for the integer key `i` (first mode fastest).
    pub fn index_of(&self, i: u64) -> Result<u64, LayoutError> {
        let idx = self
            .layout
            .index_of(i)
            .map_err(|e| LayoutError::from_core(format!("index({self}, {i})"), e))?;
        Ok(self.swizzle.apply(self.offset + idx))
    }

    /// The same swizzle and offset over a new layout.
    fn with_layout(&self, layout: Layout) -> Result<ComposedLayout, LayoutError> {
        ComposedLayout::new(self.swizzle, self.offset, layout)
    }

    /// Any operation on the layout `L`, keeping the swizzle and offset: CuTe defines the
    /// layout algebra on a composed layout this way (`op(Sw o L) = Sw o op(L)`), so every
    /// [`Layout`] method that reshapes or tiles the domain applies.
    ///
    /// ```
    /// use strideweave::{ComposedLayout, Shape};
    /// let s: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let t = s.map_layout(|l| l.divide_shape(&Shape::new((2, 16)).unwrap())).unwrap();
    /// assert_eq!(t.to_string(), "Sw<3,3,3> o ((2,4),(16,4)):((64,128),(1,16))");
    /// ```
    pub fn map_layout(
        &self,
        op: impl FnOnce(&Layout) -> Result<Layout, LayoutError>,
    ) -> Result<ComposedLayout, LayoutError> {
        let l = op(&self.layout).map_err(|e| renamed(e, &self.layout, self))?;
        self.with_layout(l)
    }

    /// CuTe's `composition(ComposedLayout, tiler)`: `Sw o offset o (L ∘ B)` with a layout,
    /// a shape or a tiler: a tile of the swizzled layout, still swizzled.
    pub fn compose<B: ComposeWith + ?Sized>(&self, b: &B) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.compose(b))
    }

    /// CuTe's `composition(ComposedLayout, Swizzle)`: `Sw o offset o (L ∘ Sw2)`. `L ∘ Sw2`
    /// is rewritten as `Sw' o L` ([`compose_layout_swizzle`], checked at every point), and
    /// `Sw ∘ Sw'` must be one swizzle ([`Swizzle::compose_swizzle`]), with offset 0 unless
    /// `Sw'` is the identity: a value error otherwise, since one swizzled layout could
    /// not hold the result.
    pub fn compose_swizzle(&self, sw: &Swizzle) -> Result<ComposedLayout, LayoutError> {
        let inner =
            compose_layout_swizzle(&self.layout, sw).map_err(|e| renamed(e, &self.layout, self))?;
        self.absorb(&inner, &sw.to_string())
    }

    /// CuTe's `composition(ComposedLayout, ComposedLayout)` for B of offset 0:
    /// `Sw o offset o (L ∘ B)`, with `L ∘ B = Sw' o (L ∘ L_B)`
    /// ([`Layout::compose_composed`]) and `Sw ∘ Sw'` merged into one swizzle as in
    /// [`ComposedLayout::compose_swizzle`].
    ///
    /// ```
    /// use strideweave::ComposedLayout;
    /// let a: ComposedLayout = "Sw<2,0,3> o (8,8):(8,1)".parse().unwrap();
    /// let b: ComposedLayout = "Sw<2,0,-3> o (8,8):(8,1)".parse().unwrap();
    /// let r = a.compose_composed(&b).unwrap();
    /// assert!((0..64).all(|i| r.index_of(i).unwrap() == a.index_of(b.index_of(i).unwrap()).unwrap()));
    /// ```
    pub fn compose_composed(&self, b: &ComposedLayout) -> Result<ComposedLayout, LayoutError> {
        let inner = self
            .layout
            .compose_composed(b)
            .map_err(|e| renamed(e, &self.layout, self))?;
        self.absorb(&inner, &b.to_string())
    }

    /// `Sw o offset o inner` as one swizzled layout, `inner` being `Sw' o 0 o L'`.
    fn absorb(&self, inner: &ComposedLayout, b: &str) -> Result<ComposedLayout, LayoutError> {
        if inner.swizzle.is_identity() {
            let offset = self.offset.checked_add(inner.offset).ok_or_else(|| {
                LayoutError::value(format!(
                    "compose({self}, {b}): the offset overflows 64 bits"
                ))
            })?;
            return ComposedLayout::new(self.swizzle, offset, inner.layout);
        }
        if self.offset != 0 {
            return Err(LayoutError::value(format!(
                "compose({self}, {b}): the offset {} lies between the two swizzles, so no \
                 single swizzled layout is the composition",
                self.offset
            )));
        }
        let sw = self
            .swizzle
            .compose_swizzle(&inner.swizzle)
            .map_err(|e| LayoutError::value(format!("compose({self}, {b}): {}", e.message())))?;
        ComposedLayout::new(sw, inner.offset, inner.layout)
    }

    /// `Sw o offset o divide(L, B)`.
    pub fn divide(&self, b: &Layout) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.divide(b))
    }

    /// `Sw o offset o divide_tiler(L, tiles)`.
    pub fn divide_tiler(&self, tiles: &[Layout]) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.divide_tiler(tiles))
    }

    /// `Sw o offset o zipped_divide(L, tiles)`.
    ///
    /// ```
    /// use strideweave::{ComposedLayout, Layout};
    /// let s: ComposedLayout = "Sw<3,4,3> o (8,64):(64,1)".parse().unwrap();
    /// let tiles = [Layout::leaf(8, 1).unwrap(), Layout::leaf(16, 1).unwrap()];
    /// assert_eq!(
    ///     s.zipped_divide(&tiles).unwrap().to_string(),
    ///     "Sw<3,4,3> o ((8,16),(1,4)):((64,1),(0,16))"
    /// );
    /// ```
    pub fn zipped_divide(&self, tiles: &[Layout]) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.zipped_divide(tiles))
    }

    /// `Sw o offset o tiled_divide(L, tiles)`.
    pub fn tiled_divide(&self, tiles: &[Layout]) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.tiled_divide(tiles))
    }

    /// `Sw o offset o logical_product(L, B)`.
    pub fn logical_product(&self, b: &Layout) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.logical_product(b))
    }

    /// `Sw o offset o blocked_product(L, B)`.
    pub fn blocked_product(&self, b: &Layout) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.blocked_product(b))
    }

    /// `Sw o offset o raked_product(L, B)`.
    pub fn raked_product(&self, b: &Layout) -> Result<ComposedLayout, LayoutError> {
        self.map_layout(|l| l.raked_product(b))
    }

    /// `Sw o offset o coalesce(L)`.
    pub fn coalesce(&self) -> ComposedLayout {
        ComposedLayout {
            layout: self.layout.coalesce(),
            ..*self
        }
    }

    /// Fixes top-level mode `mode` at coordinate `c` (one integer for the whole mode):
    /// CuTe's slice `layout(i, _)` of a swizzled layout. The fixed mode's index moves
    /// into the offset, which is why a composed layout carries one: the result is
    /// `Sw o (offset + L_mode(c)) o L_rest`, and `result(j) == self(i, j)`.
    ///
    /// ```
    /// use strideweave::{ComposedLayout, Coord};
    /// let s: ComposedLayout = "Sw<3,0,3> o (8,8):(8,1)".parse().unwrap();
    /// let row = s.fix_mode(0, 3).unwrap();
    /// assert_eq!(row.to_string(), "Sw<3,0,3> o 24 o 8:1");
    /// assert_eq!(row.index_of(5).unwrap(), s.index(&Coord::new((3, 5)).unwrap()).unwrap());
    /// ```
    pub fn fix_mode(&self, mode: usize, c: u64) -> Result<ComposedLayout, LayoutError> {
        let fixed = self.layout.get(mode)?;
        let at = fixed.index(&Coord::linear(c))?;
        let mut rest = Layout::EMPTY;
        for m in (0..self.rank()).filter(|&m| m != mode) {
            rest.push_item_of(&self.layout, m)
                .map_err(|e| LayoutError::from_core(format!("fix_mode({self}, {mode}, {c})"), e))?;
        }
        ComposedLayout::new(self.swizzle, self.offset + at, rest)
    }

    /// CuTe's slice `layout(c)` of a swizzled layout, `c` holding `_` for the free modes:
    /// the fixed modes' index moves into the offset, `Sw o (offset + o) o slice(L, c)`
    /// with `(slice(L, c), o)` = [`Layout::slice_and_offset`]. Its value at `j` is the
    /// original's at `c` with `j` in the free modes.
    ///
    /// ```
    /// use strideweave::{ComposedLayout, Coord};
    /// let s: ComposedLayout = "Sw<3,0,3> o (8,8):(8,1)".parse().unwrap();
    /// let col = s.slice_coord(&"(_,5)".parse().unwrap()).unwrap();
    /// assert_eq!(col.to_string(), "Sw<3,0,3> o 5 o 8:8");
    /// assert_eq!(col.index_of(2).unwrap(), s.index(&Coord::new((2, 5)).unwrap()).unwrap());
    /// ```
    pub fn slice_coord(&self, c: &crate::SliceCoord) -> Result<ComposedLayout, LayoutError> {
        let (l, o) = self
            .layout
            .slice_and_offset(c)
            .map_err(|e| renamed(e, &self.layout, self))?;
        let offset = self.offset.checked_add(o).ok_or_else(|| {
            LayoutError::value(format!("slice({self}, {c}): the offset overflows 64 bits"))
        })?;
        ComposedLayout::new(self.swizzle, offset, l)
    }

    /// Top-level mode `i`, still swizzled (CuTe's `get<I>` / `layout<I>`).
    pub fn get(&self, i: usize) -> Result<ComposedLayout, LayoutError> {
        self.with_layout(self.layout.get(i)?)
    }

    /// CuTe's `right_inverse` of `Sw o 0 o L`: `right_inverse(L) ∘ Sw`, rewritten as
    /// `Sw' o right_inverse(L)` ([`compose_layout_swizzle`]). `R` satisfies
    /// `self(R(i)) == i` for every `i < size(R)`; that is checked on every point, and
    /// where it fails (the swizzle moves indices outside what `L` reaches) this is an
    /// error rather than CuTe's unchecked result. A non-zero offset is an error: CuTe
    /// inverts it with a negative offset, which StrideWeave indices do not have.
    ///
    /// ```
    /// use strideweave::ComposedLayout;
    /// let s: ComposedLayout = "Sw<3,3,3> o (8,64):(64,1)".parse().unwrap();
    /// let r = s.right_inverse().unwrap();
    /// assert_eq!(r.to_string(), "Sw<3,0,-6> o (64,8):(8,1)");
    /// assert!((0..512).all(|i| s.index_of(r.index_of(i).unwrap()).unwrap() == i));
    /// ```
    pub fn right_inverse(&self) -> Result<ComposedLayout, LayoutError> {
        let what = || format!("right_inverse({self})");
        self.no_offset(&what())?;
        if let Some(c) = self.on_its_indices() {
            return c.right_inverse().map_err(|e| renamed(e, &c, self));
        }
        let r = self.layout.right_inverse()?;
        let inv = compose_layout_swizzle(&r, &self.swizzle)
            .map_err(|e| self.not_invertible(&what(), e))?;
        verify_points(&what(), inv.size(), |i| {
            let x = inv.index_of(i).ok()?;
            (x < self.size() && self.index_of(x).ok()? == i).then_some(())
        })
        .map_err(|e| self.not_invertible(&what(), e))?;
        Ok(inv)
    }

    /// CuTe's `left_inverse` of `Sw o 0 o L`: `left_inverse(L) ∘ Sw`, rewritten as
    /// `Sw' o left_inverse(L)`, returned only when `R(self(c)) == c` for every `c` (checked).
    ///
    /// ```
    /// use strideweave::ComposedLayout;
    /// let s: ComposedLayout = "Sw<2,0,-3> o (8,8):(8,1)".parse().unwrap();
    /// let l = s.left_inverse().unwrap();
    /// assert!((0..64).all(|c| l.index_of(s.index_of(c).unwrap()).unwrap() == c));
    /// ```
    pub fn left_inverse(&self) -> Result<ComposedLayout, LayoutError> {
        let what = || format!("left_inverse({self})");
        self.no_offset(&what())?;
        if let Some(c) = self.on_its_indices() {
            return c.left_inverse().map_err(|e| renamed(e, &c, self));
        }
        let l = self.layout.left_inverse()?;
        let inv = compose_layout_swizzle(&l, &self.swizzle)
            .map_err(|e| self.not_invertible(&what(), e))?;
        verify_points(&what(), self.size(), |c| {
            let y = self.index_of(c).ok()?;
            (y < inv.size() && inv.index_of(y).ok()? == c).then_some(())
        })
        .map_err(|e| self.not_invertible(&what(), e))?;
        Ok(inv)
    }

    /// Bits of the indices `L` reaches (`[0, cosize)`): the swizzle acts on no others.
    fn index_bits(&self) -> u32 {
        u64::BITS - self.layout.cosize().saturating_sub(1).leading_zeros()
    }

    /// The same function with a smaller swizzle, when the swizzle reads bits `L` never
    /// sets: on `L`'s indices those bits are zero, so they (and the bits they would
    /// flip) drop out. `Sw<3,4,3> o (8,64):(64,1)` reaches 512 indices, bits 0 to 8, and
    /// is `Sw<2,4,3> o (8,64):(64,1)` on them. `None` when nothing drops out.
    fn on_its_indices(&self) -> Option<ComposedLayout> {
        let n = self.index_bits();
        let low = u64::MAX.checked_shr(u64::BITS - n).unwrap_or(0);
        let yyy = self.swizzle.yyy_mask() & low;
        let k = self.swizzle.shift().unsigned_abs();
        let zzz = if self.swizzle.shift() >= 0 {
            yyy.checked_shr(k)
        } else {
            yyy.checked_shl(k)
        }?;
        let sw = Swizzle::from_masks(yyy, zzz)?;
        (yyy != self.swizzle.yyy_mask()).then_some(ComposedLayout {
            swizzle: sw,
            ..*self
        })
    }

    /// An inverse's failure `e`, led by the usual cause when it applies: the swizzle
    /// moves an index bit at or past the layout's indices (`[0, cosize)`), so it maps
    /// some of them outside what `L` reaches. `e`'s own words follow in parentheses.
    fn not_invertible(&self, what: &str, e: LayoutError) -> LayoutError {
        let detail = e
            .message()
            .strip_prefix(what)
            .map_or(e.message(), |m| m.trim_start_matches(": "));
        let masks = self.swizzle.code();
        let (cosize, n) = (self.layout.cosize(), self.index_bits());
        if masks == 0 || masks.checked_shr(n).unwrap_or(0) == 0 {
            return LayoutError::value(format!("{what}: {detail}"));
        }
        let top = u64::BITS - 1 - masks.leading_zeros();
        LayoutError::value(format!(
            "{what}: {} moves index bit {top}, but {} reaches only {cosize} indices (bits 0 to {}), so no swizzled layout inverts it ({detail})",
            self.swizzle,
            self.layout,
            n.saturating_sub(1)
        ))
    }

    fn no_offset(&self, what: &str) -> Result<(), LayoutError> {
        if self.offset != 0 {
            return Err(LayoutError::value(format!(
                "{what}: the offset {} would need a negative inverse offset; only offset 0 is invertible",
                self.offset
            )));
        }
        Ok(())
    }
}

/// `e` with its first mention of `inner` replaced by `outer`, kind kept: an error of the
/// layout inside a swizzled or coordinate layout, told in terms of the outer value.
pub(crate) fn renamed(
    e: LayoutError,
    inner: &dyn fmt::Display,
    outer: &dyn fmt::Display,
) -> LayoutError {
    let msg = e
        .message()
        .replacen(&inner.to_string(), &outer.to_string(), 1);
    match e.kind() {
        crate::ErrorKind::Type => LayoutError::type_error(msg),
        crate::ErrorKind::Syntax => LayoutError::syntax(msg),
        crate::ErrorKind::Value => LayoutError::value(msg),
    }
}

/// Evaluates `check` on `0..n`, failing with a value error at the first point it rejects,
/// or when `n` exceeds [`VERIFY_MAX_POINTS`].
fn verify_points(what: &str, n: u64, check: impl Fn(u64) -> Option<()>) -> Result<(), LayoutError> {
    if n > VERIFY_MAX_POINTS {
        return Err(LayoutError::value(format!(
            "{what}: {n} points are more than the {VERIFY_MAX_POINTS} StrideWeave checks the result on"
        )));
    }
    match (0..n).find(|&i| check(i).is_none()) {
        None => Ok(()),
        Some(i) => Err(LayoutError::value(format!(
            "{what}: the result is not an inverse at point {i} (the swizzle moves it outside the layout's image)"
        ))),
    }
}

/// CuTe's `composition(Layout, Swizzle)`: `A ∘ Sw` rewritten as `Sw' o A`, where `Sw'`
/// has the masks `A(YYY)` and `A(ZZZ)` (the swizzle's bits carried through A). CuTe
/// notes this "works in simple cases"; StrideWeave checks `A(Sw(i)) == Sw'(A(i))` on
/// every `i < size(A)` and fails where it does not hold or no such `Sw'` exists.
///
/// ```
/// use strideweave::{composed::compose_layout_swizzle, Layout, Swizzle};
/// let a: Layout = "(8,8):(8,1)".parse().unwrap();
/// // the transpose carries the row bits (YYY = 0b111000) to the column bits and back
/// let s = compose_layout_swizzle(&a, &Swizzle::new(3, 0, 3).unwrap()).unwrap();
/// assert_eq!(s.to_string(), "Sw<3,0,-3> o (8,8):(8,1)");
/// ```
pub fn compose_layout_swizzle(a: &Layout, sw: &Swizzle) -> Result<ComposedLayout, LayoutError> {
    let what = || format!("compose({a}, {sw})");
    if sw.is_identity() {
        return Ok(ComposedLayout::swizzled(*sw, *a));
    }
    let at = |x: u64| {
        a.index_unbounded(x)
            .ok_or_else(|| LayoutError::value(format!("{}: {a} at {x} overflows 64 bits", what())))
    };
    let (y, z) = (at(sw.yyy_mask())?, at(sw.zzz_mask())?);
    let new = Swizzle::from_masks(y, z).ok_or_else(|| {
        LayoutError::value(format!(
            "{}: {a} carries the swizzle's masks {:#b} and {:#b} to {y:#b} and {z:#b}, which are not the masks of one swizzle",
            what(),
            sw.yyy_mask(),
            sw.zzz_mask()
        ))
    })?;
    let r = ComposedLayout::swizzled(new, *a);
    verify_points(&what(), a.size(), |i| {
        let lhs = a.index_unbounded(sw.apply(i))?;
        (lhs == r.index_of(i).ok()?).then_some(())
    })
    .map_err(|_| {
        LayoutError::value(format!(
            "{}: {a} does not carry the swizzle bit for bit, so no swizzle of {a} equals it",
            what()
        ))
    })?;
    Ok(r)
}

impl Layout {
    /// CuTe's `composition(Layout, Swizzle)`; see [`compose_layout_swizzle`].
    pub fn compose_swizzle(&self, sw: &Swizzle) -> Result<ComposedLayout, LayoutError> {
        compose_layout_swizzle(self, sw)
    }

    /// CuTe's `composition(Layout, ComposedLayout)` for offset 0: `(A ∘ Sw) ∘ L`, i.e.
    /// `Sw' o (A ∘ L)`.
    pub fn compose_composed(&self, b: &ComposedLayout) -> Result<ComposedLayout, LayoutError> {
        if b.offset() != 0 {
            return Err(LayoutError::value(format!(
                "compose({self}, {b}): composing onto a swizzled layout needs offset 0"
            )));
        }
        compose_layout_swizzle(self, &b.swizzle())?.compose(&b.layout())
    }
}

impl Swizzle {
    /// CuTe's `composition(Swizzle, Layout)`: `Sw o 0 o L`.
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// let s = Swizzle::new(2, 0, -3).unwrap().compose(&"(8,8):(8,1)".parse().unwrap());
    /// assert_eq!(s.to_string(), "Sw<2,0,-3> o (8,8):(8,1)");
    /// ```
    pub fn compose(&self, layout: &Layout) -> ComposedLayout {
        ComposedLayout::swizzled(*self, *layout)
    }
}

impl fmt::Display for ComposedLayout {
    /// `Sw<B,M,S> o L`, or `Sw<B,M,S> o OFFSET o L` when the offset is not 0 (CuTe prints
    /// the offset always, as `_0` when it is the static zero).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == 0 {
            write!(f, "{} o {}", self.swizzle, self.layout)
        } else {
            write!(f, "{} o {} o {}", self.swizzle, self.offset, self.layout)
        }
    }
}

impl fmt::Debug for ComposedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ComposedLayout({self})")
    }
}

impl std::str::FromStr for ComposedLayout {
    type Err = LayoutError;
    /// Parses `Sw<B,M,S> o [OFFSET o] SHAPE:STRIDE` (the offset may be written `_N`, as
    /// CuTe prints static integers).
    fn from_str(s: &str) -> Result<ComposedLayout, LayoutError> {
        let mut p = crate::notation::Parser::new(s);
        let c = crate::notation::composed_layout(&mut p)?;
        p.finish()?;
        Ok(c)
    }
}
