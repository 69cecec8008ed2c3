//! More of CuTe's layout algebra as methods on [`Layout`]: the zipped, tiled and flat
//! products and divides, `tile_to_shape`, ordered and look-alike compact layouts,
//! recasting between element widths, by-mode coalesce, the nullspace, and selecting or
//! replacing modes. Each calls the `const fn` core in [`crate::algebra`] and names the
//! operands in its errors.

use crate::algebra::{self, Arrangement, ModeOp};
use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{IntTuple, Shape};
use crate::ops::tiler_notation;
use crate::Layout;

fn err(op: &str, a: &Layout, b: impl std::fmt::Display, e: CoreError) -> LayoutError {
    LayoutError::from_core(format!("{op}({a}, {b})"), e)
}

/// A tiler with `_` entries as the core takes it: placeholder tiles and a mask of kept modes.
/// Mode numbers as the `eval` call writes them, `2, 0`, for messages.
pub(crate) fn mode_list(modes: &[usize]) -> String {
    modes
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn split_holes(tiles: &[Option<Layout>]) -> (Vec<Layout>, u32) {
    let mut keep = 0u32;
    let v = tiles
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            Some(l) => *l,
            None => {
                if i < 32 {
                    keep |= 1 << i;
                }
                Layout::EMPTY
            }
        })
        .collect();
    (v, keep)
}

/// `[T0,_,T2]`: a tiler in notation, `_` for a kept mode.
pub(crate) fn holes_notation(tiles: &[Option<Layout>]) -> String {
    let items: Vec<String> = tiles
        .iter()
        .map(|t| t.map_or_else(|| "_".to_string(), |l| l.to_string()))
        .collect();
    format!("[{}]", items.join(","))
}

impl Layout {
    /// By-mode composition with a tiler in which `None` is CuTe's `_`: that mode of `self`
    /// is kept as it is.
    ///
    /// ```
    /// let a: strideweave::Layout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
    /// let r = a.compose_by_mode(&[None, Some("8:2".parse().unwrap())]).unwrap();
    /// assert_eq!(r.to_string(), "(12,(2,4)):(59,(26,1))");
    /// ```
    pub fn compose_by_mode(&self, tiles: &[Option<Layout>]) -> Result<Layout, LayoutError> {
        let (v, keep) = split_holes(tiles);
        algebra::by_mode_keeping(self, &v, keep, ModeOp::Compose)
            .map_err(|e| err("compose", self, holes_notation(tiles), e))
    }

    /// By-mode logical division with `None` (CuTe's `_`) keeping a mode undivided.
    ///
    /// ```
    /// let a: strideweave::Layout = "(8,8):(8,1)".parse().unwrap();
    /// let r = a.divide_by_mode(&[None, Some("4:1".parse().unwrap())]).unwrap();
    /// assert_eq!(r.to_string(), "(8,(4,2)):(8,(1,4))");
    /// ```
    pub fn divide_by_mode(&self, tiles: &[Option<Layout>]) -> Result<Layout, LayoutError> {
        let (v, keep) = split_holes(tiles);
        algebra::by_mode_keeping(self, &v, keep, ModeOp::Divide)
            .map_err(|e| err("divide", self, holes_notation(tiles), e))
    }

    /// By-mode logical product with `None` (CuTe's `_`) keeping a mode as it is.
    pub fn logical_product_by_mode(&self, tiles: &[Option<Layout>]) -> Result<Layout, LayoutError> {
        let (v, keep) = split_holes(tiles);
        let p = algebra::by_mode_keeping(self, &v, keep, ModeOp::Product)
            .map_err(|e| err("logical_product", self, holes_notation(tiles), e))?;
        // the same overlap rule as the full tiler, mode by mode
        for (i, t) in tiles.iter().enumerate() {
            if let Some(t) = t {
                let m = self
                    .mode(i)
                    .map_err(|e| err("logical_product", self, holes_notation(tiles), e))?;
                m.logical_product(t)?;
            }
        }
        Ok(p)
    }

    /// A by-mode product `((A0,A1,...),(B0',B1',...),trailing...)`: the blocks of `self`
    /// grouped in mode 0, the copies in mode 1 (CuTe's `zipped_product`; A's untouched
    /// trailing modes follow the two groups, as in [`Layout::zipped_divide`]).
    ///
    /// ```
    /// let a: strideweave::Layout = "(2,2):(1,2)".parse().unwrap();
    /// let t = ["3:1".parse().unwrap(), "2:1".parse().unwrap()];
    /// // mode 0: 2:1 repeated 3 times; mode 1: 2:2 repeated twice in its own gap
    /// assert_eq!(a.zipped_product(&t).unwrap().to_string(), "((2,2),(3,2)):((1,2),(2,1))");
    /// ```
    pub fn zipped_product(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        self.product_arranged(tiles, Arrangement::Zipped, "zipped_product")
    }

    /// `((A0,A1,...),B0',B1',...,trailing...)` (CuTe's `tiled_product`).
    pub fn tiled_product(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        self.product_arranged(tiles, Arrangement::Tiled, "tiled_product")
    }

    /// `(A0,A1,...,B0',B1',...,trailing...)` (CuTe's `flat_product`).
    pub fn flat_product(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        self.product_arranged(tiles, Arrangement::Flat, "flat_product")
    }

    fn product_arranged(
        &self,
        tiles: &[Layout],
        how: Arrangement,
        op: &str,
    ) -> Result<Layout, LayoutError> {
        self.checked_product_tiler(tiles)
            .and_then(|p| algebra::arrange_by_mode(&p, tiles.len(), how))
            .map_err(|e| err(op, self, tiler_notation(tiles), e))
    }

    /// A product by one layout, arranged: zipped is [`Layout::logical_product`] itself,
    /// tiled is `(A, copies...)`, flat `(A's modes..., copies...)`.
    ///
    /// ```
    /// use strideweave::algebra::Arrangement;
    /// let a: strideweave::Layout = "(2,2):(1,2)".parse().unwrap();
    /// let p = a.product_by(&"3:1".parse().unwrap(), Arrangement::Flat).unwrap();
    /// assert_eq!(p.to_string(), "(2,2,3):(1,2,4)");
    /// ```
    pub fn product_by(&self, b: &Layout, how: Arrangement) -> Result<Layout, LayoutError> {
        let p = self.logical_product(b)?;
        algebra::arrange_pair(&p, how).map_err(|e| err("product", self, b, e))
    }

    /// `(T0,T1,...,R0,R1,...,trailing...)`: every tile mode, then every rest mode (CuTe's
    /// `flat_divide`).
    ///
    /// ```
    /// let a: strideweave::Layout = "(8,8):(8,1)".parse().unwrap();
    /// let t = ["2:1".parse().unwrap(), "4:1".parse().unwrap()];
    /// assert_eq!(a.flat_divide(&t).unwrap().to_string(), "(2,4,4,2):(8,1,16,4)");
    /// ```
    pub fn flat_divide(&self, tiles: &[Layout]) -> Result<Layout, LayoutError> {
        let d = self.divide_tiler(tiles)?;
        algebra::arrange_by_mode(&d, tiles.len(), Arrangement::Flat)
            .map_err(|e| err("flat_divide", self, tiler_notation(tiles), e))
    }

    /// A division by one layout, arranged: zipped is [`Layout::divide`] itself, tiled is
    /// `(tile, rests...)`, flat `(tile modes..., rests...)`.
    pub fn divide_by(&self, b: &Layout, how: Arrangement) -> Result<Layout, LayoutError> {
        let d = self.divide(b)?;
        algebra::arrange_pair(&d, how).map_err(|e| err("divide", self, b, e))
    }

    /// Copies of `self` (the block) arranged to fill `target`, the copies ordered by
    /// `order` (column-major when `None`); each mode size of the block must divide the
    /// target's (CuTe's `tile_to_shape`).
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let block: Layout = "(2,2):(1,2)".parse().unwrap();
    /// let t = block.tile_to_shape(&Shape::new((4, 6)).unwrap(), None).unwrap();
    /// assert_eq!(t.to_string(), "((2,2),(2,3)):((1,4),(2,8))");
    /// ```
    pub fn tile_to_shape(
        &self,
        target: &Shape,
        order: Option<&IntTuple>,
    ) -> Result<Layout, LayoutError> {
        algebra::tile_to_shape(self, target.as_tuple(), order).map_err(|e| match order {
            Some(o) => LayoutError::from_core(format!("tile_to_shape({self}, {target}, {o})"), e),
            None => err("tile_to_shape", self, target, e),
        })
    }

    /// The compact layout of `shape` whose items are laid out in increasing `order` (ties
    /// left to right); `order` has one value per leaf or per item of `shape` (CuTe's
    /// `make_ordered_layout`).
    ///
    /// ```
    /// use strideweave::{IntTuple, Layout, Shape};
    /// let s = Shape::new((2, 2, 2, 2)).unwrap();
    /// let l = Layout::make_ordered_layout(&s, &IntTuple::new((0, 2, 3, 1)).unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(2,2,2,2):(1,4,8,2)");
    /// ```
    pub fn make_ordered_layout(shape: &Shape, order: &IntTuple) -> Result<Layout, LayoutError> {
        algebra::make_ordered_layout(shape.as_tuple(), order).map_err(|e| match e {
            CoreError::ProfileMismatch => LayoutError::value(format!(
                "make_ordered_layout({shape}, {order}): the order is not weakly congruent with the shape"
            )),
            e => LayoutError::from_core(format!("make_ordered_layout({shape}, {order})"), e),
        })
    }

    /// A compact layout with `self`'s shape and its leaves in the order of `self`'s strides;
    /// stride-0 leaves stay 0 (CuTe's `make_layout_like`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,3,4,5):(0,42,1,0)".parse().unwrap();
    /// assert_eq!(l.make_layout_like().unwrap().to_string(), "(2,3,4,5):(0,4,1,0)");
    /// ```
    pub fn make_layout_like(&self) -> Result<Layout, LayoutError> {
        algebra::make_layout_like(self)
            .map_err(|e| LayoutError::from_core(format!("make_layout_like({self})"), e))
    }

    /// The layout over elements `n` times wider (CuTe's `upcast<N>`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.upcast(2).unwrap().to_string(), "(2,8):(1,2)");
    /// assert_eq!(l.upcast(2).unwrap().downcast(2).unwrap(), l);
    /// ```
    pub fn upcast(&self, n: u64) -> Result<Layout, LayoutError> {
        algebra::upcast(self, n).map_err(|e| err("upcast", self, n, e))
    }

    /// The layout over elements `n` times narrower (CuTe's `downcast<N>`).
    pub fn downcast(&self, n: u64) -> Result<Layout, LayoutError> {
        algebra::downcast(self, n).map_err(|e| err("downcast", self, n, e))
    }

    /// `self`, over `old_bits`-wide elements, as a layout over `new_bits`-wide elements
    /// (CuTe's `recast_layout<Old, New>`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.recast(16, 32).unwrap().to_string(), "(2,8):(1,2)");
    /// assert_eq!(l.recast(16, 8).unwrap().to_string(), "(8,8):(1,8)");
    /// ```
    pub fn recast(&self, old_bits: u64, new_bits: u64) -> Result<Layout, LayoutError> {
        algebra::recast_layout(self, old_bits, new_bits).map_err(|e| {
            LayoutError::from_core(format!("recast_layout({self}, {old_bits}, {new_bits})"), e)
        })
    }

    /// Coalesce by mode (CuTe's `coalesce(layout, profile)`): an integer in `profile`
    /// coalesces the whole mode under it; modes past the profile are kept.
    ///
    /// ```
    /// use strideweave::IntTuple;
    /// let l: strideweave::Layout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
    /// assert_eq!(l.coalesce_by(&IntTuple::new((1, 1)).unwrap()).unwrap().to_string(), "(2,6):(1,2)");
    /// ```
    pub fn coalesce_by(&self, profile: &IntTuple) -> Result<Layout, LayoutError> {
        algebra::coalesce_by(self, profile).map_err(|e| err("coalesce", self, profile, e))
    }

    /// The layout of `self`'s kernel: integer keys of `self` that it sends to 0, one mode
    /// per stride-0 leaf (CuTe's `nullspace`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,4,3):(0,1,0)".parse().unwrap();
    /// assert_eq!(l.nullspace().unwrap().to_string(), "(2,3):(1,8)");
    /// ```
    pub fn nullspace(&self) -> Result<Layout, LayoutError> {
        algebra::nullspace(self)
            .map_err(|e| LayoutError::from_core(format!("nullspace({self})"), e))
    }

    /// The top-level modes `modes[0]`, `modes[1]`, ... of `self` (repeats allowed; CuTe's
    /// `select<I...>`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,(3,4),5):(1,(2,6),24)".parse().unwrap();
    /// assert_eq!(l.select(&[2, 0]).unwrap().to_string(), "(5,2):(24,1)");
    /// ```
    pub fn select(&self, modes: &[usize]) -> Result<Layout, LayoutError> {
        let mut r = Layout::EMPTY;
        for &m in modes {
            r.push_item_of(self, m).map_err(|e| {
                LayoutError::from_core(format!("select({self}, {})", mode_list(modes)), e)
            })?;
        }
        r.validated()
            .map_err(|e| LayoutError::from_core(format!("select({self}, {})", mode_list(modes)), e))
    }

    /// `self` with top-level mode `i` replaced by `x` (CuTe's `replace<I>`).
    ///
    /// ```
    /// let l: strideweave::Layout = "(2,3):(1,2)".parse().unwrap();
    /// let x: strideweave::Layout = "(4,5):(6,24)".parse().unwrap();
    /// assert_eq!(l.replace(1, &x).unwrap().to_string(), "(2,(4,5)):(1,(6,24))");
    /// ```
    pub fn replace(&self, i: usize, x: &Layout) -> Result<Layout, LayoutError> {
        let ctx = || format!("replace({self}, {i}, {x})");
        if i >= self.rank() {
            return Err(LayoutError::from_core(
                ctx(),
                CoreError::ModeOutOfRange {
                    index: i as u64,
                    rank: self.rank() as u64,
                },
            ));
        }
        let mut r = Layout::EMPTY;
        for k in 0..self.rank() {
            if k == i {
                r.push_mode(x)
            } else {
                r.push_item_of(self, k)
            }
            .map_err(|e| LayoutError::from_core(ctx(), e))?;
        }
        r.validated().map_err(|e| LayoutError::from_core(ctx(), e))
    }
}

impl Layout {
    /// CuTe's `composition(Layout, B)` for a `B` with scaled-basis strides (a coordinate
    /// layout): `R(c) = A(B(c))`, `B(c)` being a coordinate of A. Each leaf `s:k@p` of B
    /// walks mode `p` of A (a path into A's hierarchy) at stride `k`, so it becomes
    /// `compose(mode p of A, s:k)`; a stride-0 leaf stays `s:0`. The result has B's
    /// hierarchy with each leaf replaced by its composition.
    ///
    /// ```
    /// use strideweave::{CoordLayout, Layout};
    /// let a: Layout = "(4,4):(4,1)".parse().unwrap();
    /// let t: CoordLayout = "(4,4):(1@1,1@0)".parse().unwrap();
    /// assert_eq!(a.compose_coord(&t).unwrap().to_string(), "(4,4):(1,4)");
    /// ```
    pub fn compose_coord(&self, b: &crate::CoordLayout) -> Result<Layout, LayoutError> {
        let what = || format!("compose({self}, {b})");
        let shape = *b.shape().as_tuple();
        let mut stack = vec![Layout::EMPTY];
        let mut leaf = 0;
        for node in shape.recipe() {
            match node {
                crate::Node::Leaf => {
                    let s = shape.leaf(leaf);
                    let r = match b.leaf_stride(leaf) {
                        (k, Some(basis)) => {
                            let mut sub = *self;
                            for &m in basis.path() {
                                sub = sub.get(m as usize).map_err(|e| {
                                    LayoutError::value(format!(
                                        "{}: B's stride {k}{basis} names a mode A does not \
                                         have ({})",
                                        what(),
                                        e.message()
                                    ))
                                })?;
                            }
                            let t = Layout::leaf(s, k)
                                .map_err(|e| LayoutError::from_core(what(), e))?;
                            sub.compose(&t).map_err(|e| {
                                LayoutError::value(format!("{}: {}", what(), e.message()))
                            })?
                        }
                        (_, None) => {
                            Layout::leaf(s, 0).map_err(|e| LayoutError::from_core(what(), e))?
                        }
                    };
                    leaf += 1;
                    let top = stack.last_mut().ok_or_else(|| LayoutError::value(what()))?;
                    top.push_mode(&r)
                        .map_err(|e| LayoutError::from_core(what(), e))?;
                }
                crate::Node::Push => stack.push(Layout::EMPTY),
                crate::Node::Pop => {
                    let inner = stack.pop().ok_or_else(|| LayoutError::value(what()))?;
                    let top = stack.last_mut().ok_or_else(|| LayoutError::value(what()))?;
                    top.push_group(&inner)
                        .map_err(|e| LayoutError::from_core(what(), e))?;
                }
            }
        }
        stack.pop().ok_or_else(|| LayoutError::value(what()))
    }
}

impl Layout {
    /// CuTe's `domain_distribute(shape, n)`: an ordered, compact-strided layout into the
    /// coordinates of `shape` (integer keys, first mode fastest) of at most `n` elements
    /// whose size divides `n`, taking from each leaf of `shape` in turn the largest part it
    /// shares with what is left of `n` (`gcd`). Tiling `shape` by it leaves no partial
    /// tile.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let d = Layout::domain_distribute(&Shape::new((15, 14)).unwrap(), 6).unwrap();
    /// assert_eq!(d.to_string(), "(3,2):(1,15)");
    /// ```
    pub fn domain_distribute(shape: &Shape, n: u64) -> Result<Layout, LayoutError> {
        let what = || format!("domain_distribute({shape}, {n})");
        if n == 0 {
            return Err(LayoutError::value(format!(
                "{}: n must be at least 1",
                what()
            )));
        }
        let flat = *Layout::compact_col_major(*shape.as_tuple())
            .map_err(|e| LayoutError::from_core(what(), e))?
            .flatten()
            .stride()
            .as_tuple();
        let mut rest = n;
        let mut r = Layout::EMPTY;
        for (k, &s) in shape.as_tuple().leaves().iter().enumerate() {
            let g = algebra::gcd(s, rest);
            rest /= g;
            r.push_leaf(g, flat.leaf(k))
                .map_err(|e| LayoutError::from_core(what(), e))?;
        }
        Ok(r.coalesce())
    }
}
