//! Coordinate layouts: CuTe's scaled-basis strides `k@i`, so a layout maps to a
//! coordinate instead of an integer. `(4,8):(1@0,1@1)` is the identity layout of the
//! shape `(4,8)`: it maps key 5 to the coordinate `(1,1)`. Identity tensors and the
//! predicates that mask edge tiles are built on them: tile and partition the identity
//! layout exactly as the data layout, and each element's original coordinate comes out.
//!
//! A stride `k@i` is `k` times the unit vector of coordinate mode `i`; a nested basis
//! `k@j@i` (CuTe's `E<i,j>`, printed innermost first as CuTe prints it) points into
//! sub-mode `j` of mode `i`. A stride `0` adds nothing.
//!
//! ```
//! use strideweave::{Coord, CoordLayout, Layout, Shape};
//! let id = CoordLayout::identity(&Shape::new((4, 8)).unwrap()).unwrap();
//! assert_eq!(id.to_string(), "(4,8):(1@0,1@1)");
//! assert_eq!(id.index_of(5).unwrap().to_string(), "(1,1)");
//! // the second 2x4 tile of a zipped division, as coordinates of the original (4,8)
//! let tiles = [Layout::leaf(2, 1).unwrap(), Layout::leaf(4, 1).unwrap()];
//! let z = id.zipped_divide(&tiles).unwrap();
//! assert_eq!(z.to_string(), "((2,4),(2,2)):((1@0,1@1),(2@0,4@1))");
//! assert_eq!(z.index(&Coord::new(((1, 3), (1, 0))).unwrap()).unwrap().to_string(), "(3,3)");
//! ```

use crate::composed::renamed;
use crate::error::LayoutError;
use crate::int_tuple::{Coord, IntTuple, Node, Shape, Stride};
use crate::notation::Parser;
use crate::ops::{tiler_notation, ComposeWith};
use crate::{Layout, MAX_LEAVES};
use std::fmt;

/// Deepest basis path `k@..@..` a coordinate layout holds.
pub const MAX_BASIS_DEPTH: usize = 8;

/// A basis direction `E<i0,i1,...>`: coordinate mode `i0`, its sub-mode `i1`, and so on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Basis {
    len: u8,
    path: [u8; MAX_BASIS_DEPTH],
}

impl Basis {
    /// `E<path...>`, outermost mode first; 1 to [`MAX_BASIS_DEPTH`] modes, each below 256.
    ///
    /// ```
    /// let e = strideweave::Basis::new(&[1, 0]).unwrap();
    /// assert_eq!(e.to_string(), "@0@1");   // CuTe prints E<1,0> scaled by k as k@0@1
    /// ```
    pub fn new(path: &[usize]) -> Result<Basis, LayoutError> {
        if path.is_empty() || path.len() > MAX_BASIS_DEPTH {
            return Err(LayoutError::value(format!(
                "a basis has 1 to {MAX_BASIS_DEPTH} mode indices, not {}",
                path.len()
            )));
        }
        let mut b = Basis {
            len: path.len() as u8,
            path: [0; MAX_BASIS_DEPTH],
        };
        for (slot, &i) in b.path.iter_mut().zip(path) {
            *slot = u8::try_from(i)
                .map_err(|_| LayoutError::value(format!("basis mode index {i} is above 255")))?;
        }
        Ok(b)
    }

    /// The mode path, outermost first.
    pub fn path(&self) -> &[u8] {
        &self.path[..self.len as usize]
    }
}

impl fmt::Display for Basis {
    /// The suffix CuTe prints after the scale: `@i_last...@i_first`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in self.path().iter().rev() {
            write!(f, "@{i}")?;
        }
        Ok(())
    }
}

/// A layout whose strides are scaled basis elements `k@i` (or 0): a function from
/// coordinates of its shape to coordinates of a codomain.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoordLayout {
    /// The shape, with each leaf's stride scale `k` as the integer stride.
    scaled: Layout,
    /// Each leaf's direction (ignored where the scale is 0).
    basis: [Basis; MAX_LEAVES],
}

const NO_BASIS: Basis = Basis {
    len: 0,
    path: [0; MAX_BASIS_DEPTH],
};

impl CoordLayout {
    /// CuTe's `make_identity_layout(shape)`: each leaf of the shape maps to its own
    /// coordinate mode, `(2,(3,4))` to `(2,(3,4)):(1@0,(1@0@1,1@1@1))`. A single
    /// integer shape `n` gives `n:1@0` (its coordinate is the one-mode tuple `(c)`,
    /// which the notation writes `c`).
    pub fn identity(shape: &Shape) -> Result<CoordLayout, LayoutError> {
        let t = *shape.as_tuple();
        let mut ones = t;
        let mut basis = [NO_BASIS; MAX_LEAVES];
        for (leaf, path) in leaf_paths(&t).into_iter().enumerate() {
            ones.set_leaf(leaf, 1);
            basis[leaf] = Basis::new(&path)?;
        }
        let scaled = Layout::new(*shape, Stride::from_tuple(ones)?)?;
        CoordLayout::checked(scaled, basis)
    }

    /// A coordinate layout from a shape, the stride scales and one direction per leaf
    /// (`None` only where the scale is 0).
    pub fn new(
        shape: Shape,
        scales: Stride,
        basis: &[Option<Basis>],
    ) -> Result<CoordLayout, LayoutError> {
        let scaled = Layout::new(shape, scales)?;
        if basis.len() != scaled.leaf_count() {
            return Err(LayoutError::value(format!(
                "{} basis directions given for the {} leaves of shape {shape}",
                basis.len(),
                scaled.leaf_count()
            )));
        }
        let mut dirs = [NO_BASIS; MAX_LEAVES];
        for (i, b) in basis.iter().enumerate() {
            match b {
                Some(b) => dirs[i] = *b,
                None if scaled.leaf_stride(i) == 0 => {}
                None => {
                    return Err(LayoutError::value(format!(
                        "stride {} of leaf {i} has no basis: a coordinate layout's strides are k@i or 0",
                        scaled.leaf_stride(i)
                    )))
                }
            }
        }
        CoordLayout::checked(scaled, dirs)
    }

    /// Normalises zero strides to no basis and checks the codomain is a tree.
    fn checked(scaled: Layout, mut basis: [Basis; MAX_LEAVES]) -> Result<CoordLayout, LayoutError> {
        for (i, b) in basis.iter_mut().enumerate().take(scaled.leaf_count()) {
            if scaled.leaf_stride(i) == 0 {
                *b = NO_BASIS;
            }
        }
        let l = CoordLayout { scaled, basis };
        Codomain::of(&l.components())
            .map_err(|e| LayoutError::value(format!("coordinate layout {l}: {e}")))?;
        Ok(l)
    }

    /// The shape (the domain).
    pub fn shape(&self) -> Shape {
        self.scaled.shape()
    }

    /// Number of coordinates of the domain.
    pub fn size(&self) -> u64 {
        self.scaled.size()
    }

    /// Number of top-level modes.
    pub fn rank(&self) -> usize {
        self.scaled.rank()
    }

    /// Nesting depth of the shape.
    pub fn depth(&self) -> usize {
        self.scaled.depth()
    }

    /// Stride of leaf `i` as `(scale, direction)`; the direction is `None` for stride 0.
    pub fn leaf_stride(&self, i: usize) -> (u64, Option<Basis>) {
        let k = self.scaled.leaf_stride(i);
        (k, (k != 0).then_some(self.basis[i]))
    }

    /// The distinct directions the strides use, sorted.
    fn components(&self) -> Vec<Basis> {
        let mut c: Vec<Basis> = (0..self.scaled.leaf_count())
            .filter_map(|i| self.leaf_stride(i).1)
            .collect();
        c.sort();
        c.dedup();
        c
    }

    /// The layout of leaf scales restricted to direction `b` (other leaves stride 0).
    fn projection(&self, b: &Basis) -> Layout {
        let mut strides = *self.scaled.stride().as_tuple();
        for i in 0..self.scaled.leaf_count() {
            if self.leaf_stride(i).1.as_ref() != Some(b) {
                strides.set_leaf(i, 0);
            }
        }
        // same shape, strides only lowered: cannot fail
        Layout::from_trees(*self.scaled.shape().as_tuple(), strides).unwrap_or(self.scaled)
    }

    /// The coordinate of a hierarchical coordinate (or integer key) of the domain: the sum
    /// of `c_i * k_i@b_i`, as a tuple shaped like the directions used.
    pub fn index(&self, coord: &Coord) -> Result<Coord, LayoutError> {
        // the domain checks are those of the integer layout of scales; its errors name it,
        // so show this layout instead
        self.scaled
            .index(coord)
            .map_err(|e| renamed(e, &self.scaled, self))?;
        let comps = self.components();
        let codomain = Codomain::of(&comps).map_err(LayoutError::value)?;
        let mut out = codomain.template;
        for (b, slot) in comps.iter().zip(&codomain.slots) {
            // one coordinate mode: the integer layout of the scales along direction `b`
            out.set_leaf(*slot, self.projection(b).index(coord)?);
        }
        Coord::from_tuple(out)
    }

    /// The coordinate of the integer key `i` (first mode fastest).
    pub fn index_of(&self, i: u64) -> Result<Coord, LayoutError> {
        self.index(&Coord::linear(i))
    }

    /// Runs an integer-layout operation on this layout with its directions encoded in
    /// disjoint bit fields of the strides, and decodes the result.
    ///
    /// The algebra multiplies A's strides by integers and compares `extent * stride` with
    /// the next stride to merge modes; with each direction's scales kept below its field
    /// both act field by field, so the one integer algebra computes the coordinate result.
    /// It is run with two field orders and must decode the same way in both, so a field
    /// that overflowed into its neighbour is an error, never a wrong result.
    pub(crate) fn map_integer(
        &self,
        what: &dyn Fn() -> String,
        op: &dyn Fn(&Layout) -> Result<Layout, LayoutError>,
    ) -> Result<CoordLayout, LayoutError> {
        let comps = self.components();
        let n = comps.len().max(1) as u32;
        let width = 64 / n;
        for i in 0..self.scaled.leaf_count() {
            let reach = (self.scaled.leaf_extent(i) as u128) * self.scaled.leaf_stride(i) as u128;
            if width < 64 && reach >> width != 0 {
                return Err(LayoutError::value(format!(
                    "{}: leaf {i} reaches {reach} along one coordinate, more than the {width} bits each of {n} coordinate modes gets in StrideWeave's encoding",
                    what()
                )));
            }
        }
        let forward: Vec<Basis> = comps.clone();
        let backward: Vec<Basis> = comps.iter().rev().copied().collect();
        let run = |order: &[Basis]| -> Result<CoordLayout, LayoutError> {
            let encoded = self
                .encode(order, width)
                .map_err(|e| LayoutError::value(format!("{}: {}", what(), e.message())))?;
            // the operation's own message, with the encoding shown as this layout
            let r = op(&encoded).map_err(|e| renamed(e, &encoded, self))?;
            decode(&r, order, width).ok_or_else(|| {
                LayoutError::value(format!(
                    "{}: a coordinate stride grew past its {width}-bit field",
                    what()
                ))
            })
        };
        let a = run(&forward)?;
        if comps.len() > 1 && run(&backward)? != a {
            return Err(LayoutError::value(format!(
                "{}: a coordinate stride grew past its {width}-bit field",
                what()
            )));
        }
        Ok(a)
    }

    fn encode(&self, order: &[Basis], width: u32) -> Result<Layout, LayoutError> {
        let mut strides = *self.scaled.stride().as_tuple();
        for i in 0..self.scaled.leaf_count() {
            if let (k, Some(b)) = self.leaf_stride(i) {
                let field = order.iter().position(|o| *o == b).unwrap_or(0) as u32 * width;
                strides.set_leaf(i, k << field);
            }
        }
        Layout::new(self.scaled.shape(), Stride::from_tuple(strides)?)
    }

    /// CuTe's `composition` of a coordinate layout with a layout, a shape or a tiler.
    ///
    /// ```
    /// use strideweave::{CoordLayout, Layout, Shape};
    /// let id = CoordLayout::identity(&Shape::new((4, 8)).unwrap()).unwrap();
    /// let t = id.compose(&"(2,4):(1,8)".parse::<Layout>().unwrap()).unwrap();
    /// assert_eq!(t.to_string(), "(2,4):(1@0,2@1)");
    /// ```
    pub fn compose<B: ComposeWith + ?Sized>(&self, b: &B) -> Result<CoordLayout, LayoutError> {
        self.map_integer(&|| format!("compose({self}, {})", b.notation()), &|a| {
            a.compose(b)
        })
    }

    /// `divide(self, B)`: the tile of B and the rest, as coordinates.
    pub fn divide(&self, b: &Layout) -> Result<CoordLayout, LayoutError> {
        self.map_integer(&|| format!("divide({self}, {b})"), &|a| a.divide(b))
    }

    /// Divides each leading mode by its tile.
    pub fn divide_tiler(&self, tiles: &[Layout]) -> Result<CoordLayout, LayoutError> {
        self.map_integer(
            &|| format!("divide_tiler({self}, {})", tiler_notation(tiles)),
            &|a| a.divide_tiler(tiles),
        )
    }

    /// `((tiles...), (rests...), untouched modes...)`, as coordinates.
    pub fn zipped_divide(&self, tiles: &[Layout]) -> Result<CoordLayout, LayoutError> {
        self.map_integer(
            &|| format!("zipped_divide({self}, {})", tiler_notation(tiles)),
            &|a| a.zipped_divide(tiles),
        )
    }

    /// `((tiles...), rest0, rest1, ..., untouched modes...)`, as coordinates.
    pub fn tiled_divide(&self, tiles: &[Layout]) -> Result<CoordLayout, LayoutError> {
        self.map_integer(
            &|| format!("tiled_divide({self}, {})", tiler_notation(tiles)),
            &|a| a.tiled_divide(tiles),
        )
    }

    /// Merges leaves that continue each other along the same direction.
    ///
    /// ```
    /// let l: strideweave::CoordLayout = "(2,4,3):(1@0,2@0,1@1)".parse().unwrap();
    /// assert_eq!(l.coalesce().unwrap().to_string(), "(8,3):(1@0,1@1)");
    /// ```
    pub fn coalesce(&self) -> Result<CoordLayout, LayoutError> {
        self.map_integer(&|| format!("coalesce({self})"), &|a| Ok(a.coalesce()))
    }

    /// Top-level mode `i`.
    pub fn get(&self, i: usize) -> Result<CoordLayout, LayoutError> {
        self.map_integer(&|| format!("get({self}, {i})"), &|a| a.get(i))
    }
}

/// The coordinate layout of an encoded result: each stride must be one direction's
/// field value.
fn decode(r: &Layout, order: &[Basis], width: u32) -> Option<CoordLayout> {
    let mut scales = *r.stride().as_tuple();
    let mut basis = [NO_BASIS; MAX_LEAVES];
    for (i, dir) in basis.iter_mut().enumerate().take(r.leaf_count()) {
        let v = r.leaf_stride(i);
        if v == 0 {
            continue;
        }
        let field = v.trailing_zeros() / width;
        let k = v >> (field * width);
        if field as usize >= order.len() || (width < 64 && k >> width != 0) {
            return None;
        }
        scales.set_leaf(i, k);
        *dir = order[field as usize];
    }
    let scaled = Layout::from_trees(*r.shape().as_tuple(), scales).ok()?;
    CoordLayout::checked(scaled, basis).ok()
}

/// Where each leaf of a shape sits: its mode path, outermost first.
fn leaf_paths(t: &IntTuple) -> Vec<Vec<usize>> {
    let mut paths = Vec::new();
    let mut stack = vec![0usize];
    for &n in t.recipe() {
        match n {
            Node::Leaf => {
                paths.push(stack.clone());
                *stack.last_mut().expect("never empty") += 1;
            }
            Node::Push => stack.push(0),
            Node::Pop => {
                stack.pop();
                *stack.last_mut().expect("never empty") += 1;
            }
        }
    }
    paths
}

/// The tuple a coordinate layout's values live in: zeros shaped like its directions,
/// and the leaf each direction fills.
struct Codomain {
    template: IntTuple,
    slots: Vec<usize>,
}

impl Codomain {
    fn of(comps: &[Basis]) -> Result<Codomain, String> {
        let mut c = Codomain {
            template: IntTuple::EMPTY,
            slots: vec![0; comps.len()],
        };
        let all: Vec<usize> = (0..comps.len()).collect();
        c.level(comps, &all, 0)?;
        if comps.is_empty() {
            c.template = IntTuple::scalar(0);
        }
        Ok(c)
    }

    /// Emits the items at depth `d` of the directions `members` (which share a prefix).
    fn level(&mut self, comps: &[Basis], members: &[usize], d: usize) -> Result<(), String> {
        let max = members
            .iter()
            .map(|&m| comps[m].path()[d])
            .max()
            .unwrap_or(0);
        for idx in 0..=max {
            let group: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&m| comps[m].path()[d] == idx)
                .collect();
            let ends = group
                .iter()
                .filter(|&&m| comps[m].path().len() == d + 1)
                .count();
            let push = |t: &mut IntTuple, n: Node| {
                t.push_node(n)
                    .map_err(|e| format!("codomain: {}", e.describe()))
            };
            if group.is_empty() || ends == group.len() {
                if let Some(&m) = group.first() {
                    self.slots[m] = self.template.leaf_count();
                }
                self.template
                    .push_leaf(0)
                    .map_err(|e| format!("codomain: {}", e.describe()))?;
            } else if ends > 0 {
                return Err(format!(
                    "directions disagree on whether coordinate mode {} is an integer or a tuple",
                    path_text(&comps[group[0]].path()[..=d])
                ));
            } else {
                push(&mut self.template, Node::Push)?;
                self.level(comps, &group, d + 1)?;
                push(&mut self.template, Node::Pop)?;
            }
        }
        Ok(())
    }
}

fn path_text(p: &[u8]) -> String {
    p.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(".")
}

impl fmt::Display for CoordLayout {
    /// `SHAPE:STRIDE` with strides `k@i...` (CuTe's order: innermost mode first) or `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.scaled.shape())?;
        let t = *self.scaled.shape().as_tuple();
        let leaf = |f: &mut fmt::Formatter<'_>, i: usize| match self.leaf_stride(i) {
            (k, Some(b)) => write!(f, "{k}{b}"),
            (k, None) => write!(f, "{k}"),
        };
        if t.is_scalar() {
            return leaf(f, 0);
        }
        f.write_str("(")?;
        let mut first = true;
        let mut li = 0;
        for &n in t.recipe() {
            match n {
                Node::Leaf | Node::Push => {
                    if !first {
                        f.write_str(",")?;
                    }
                    if n == Node::Push {
                        f.write_str("(")?;
                        first = true;
                    } else {
                        leaf(f, li)?;
                        li += 1;
                        first = false;
                    }
                }
                Node::Pop => {
                    f.write_str(")")?;
                    first = false;
                }
            }
        }
        f.write_str(")")
    }
}

impl fmt::Debug for CoordLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CoordLayout({self})")
    }
}

/// A stride tree whose leaves may carry bases: `(1@0,(2@0@1,0))`. Returns the scales,
/// the direction of each leaf, and whether any leaf had one.
pub(crate) fn basis_stride_tree(
    p: &mut Parser,
) -> Result<(IntTuple, Vec<Option<Basis>>, bool), LayoutError> {
    let mut t = IntTuple::EMPTY;
    let mut dirs = Vec::new();
    let core = |e| LayoutError::from_core("stride tree", e);
    if p.peek() != Some('(') {
        let (k, b) = basis_leaf(p)?;
        t.push_leaf(k).map_err(core)?;
        let any = b.is_some();
        dirs.push(b);
        return Ok((t, dirs, any));
    }
    basis_items(p, &mut t, &mut dirs, true)?;
    let any = dirs.iter().any(|d| d.is_some());
    Ok((t, dirs, any))
}

fn basis_items(
    p: &mut Parser,
    t: &mut IntTuple,
    dirs: &mut Vec<Option<Basis>>,
    outer: bool,
) -> Result<(), LayoutError> {
    p.enter()?;
    let core = |e| LayoutError::from_core("stride tree", e);
    p.expect('(')?;
    if !outer {
        t.push_node(Node::Push).map_err(core)?;
    }
    if !p.eat(')') {
        loop {
            if p.peek() == Some('(') {
                basis_items(p, t, dirs, false)?;
            } else {
                let (k, b) = basis_leaf(p)?;
                t.push_leaf(k).map_err(core)?;
                dirs.push(b);
            }
            if p.eat(')') {
                break;
            }
            if !p.eat(',') {
                return Err(p.unexpected("',' or ')'"));
            }
        }
    }
    if !outer {
        t.push_node(Node::Pop).map_err(core)?;
    }
    p.leave();
    Ok(())
}

/// `k`, or `k@i` / `k@j@i` (innermost first, as CuTe prints).
fn basis_leaf(p: &mut Parser) -> Result<(u64, Option<Basis>), LayoutError> {
    let k = match crate::notation::cute_integer(p)? {
        Some(k) => k,
        None => return Err(p.unexpected("an integer or '('")),
    };
    let mut printed = Vec::new();
    while p.eat('@') {
        match p.integer()? {
            Some(i) => printed.push(i as usize),
            None => return Err(p.unexpected("a mode index after '@'")),
        }
    }
    if printed.is_empty() {
        return Ok((k, None));
    }
    printed.reverse();
    Ok((k, Some(Basis::new(&printed)?)))
}

/// A coordinate layout from a parsed shape and basis stride tree.
pub(crate) fn from_parts(
    shape: IntTuple,
    scales: IntTuple,
    dirs: &[Option<Basis>],
) -> Result<CoordLayout, LayoutError> {
    let shape = Shape::from_tuple(shape)?;
    let scales = Stride::from_tuple(scales)?;
    if !shape.as_tuple().congruent(scales.as_tuple()) {
        return Err(LayoutError::value(format!(
            "shape {shape} and stride {} are not congruent",
            DisplayScales(scales.as_tuple(), dirs)
        )));
    }
    CoordLayout::new(shape, scales, dirs)
}

struct DisplayScales<'a>(&'a IntTuple, &'a [Option<Basis>]);

impl fmt::Display for DisplayScales<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        // re-insert the bases after each number, in order
        let mut out = String::new();
        let mut leaf = 0;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(c);
            if c.is_ascii_digit() && !chars.peek().is_some_and(|n| n.is_ascii_digit()) {
                if let Some(Some(b)) = self.1.get(leaf) {
                    out.push_str(&b.to_string());
                }
                leaf += 1;
            }
        }
        f.write_str(&out)
    }
}

impl std::str::FromStr for CoordLayout {
    type Err = LayoutError;
    /// Parses `SHAPE:STRIDE` with scaled-basis strides, e.g. `(4,8):(1@0,1@1)`.
    fn from_str(s: &str) -> Result<CoordLayout, LayoutError> {
        let mut p = Parser::new(s);
        let shape = p.int_tuple()?;
        p.expect(':')?;
        let (scales, dirs, _) = basis_stride_tree(&mut p)?;
        p.finish()?;
        from_parts(shape, scales, &dirs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_paths_follow_the_hierarchy() {
        let t: IntTuple = "(2,(3,4),5)".parse().unwrap();
        assert_eq!(
            leaf_paths(&t),
            vec![vec![0], vec![1, 0], vec![1, 1], vec![2]]
        );
        assert_eq!(leaf_paths(&IntTuple::scalar(7)), vec![vec![0]]);
    }

    #[test]
    fn conflicting_directions_are_rejected() {
        let e = "(2,3):(1@0,1@0@0)".parse::<CoordLayout>().unwrap_err();
        assert!(e.message().contains("integer or a tuple"), "{e}");
    }
}
