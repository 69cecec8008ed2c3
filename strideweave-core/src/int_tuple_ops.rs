//! The integer-tuple helpers CuTe's algebra is written with (`cute/int_tuple.hpp`):
//! profile tests, shape division and modulus, prefix and inner products, the three
//! coordinate orders, and the coordinate/index conversions.
//!
//! Each works on [`IntTuple`]s of any nesting. An integer and a one-item tuple are the
//! same value here (as everywhere in StrideWeave), so `shape_div(6, 2)` and
//! `shape_div((6), 2)` agree.
//!
//! ```
//! use strideweave::int_tuple_ops::{shape_div, weakly_congruent};
//! use strideweave::IntTuple;
//! let t = |s: &str| s.parse::<IntTuple>().unwrap();
//! assert_eq!(shape_div(&t("(4,5,6)"), &t("40")).unwrap(), t("(1,1,3)"));
//! assert!(weakly_congruent(&t("(1,2)"), &t("(3,(4,5))")));
//! ```

use crate::algebra::covering_leaves;
use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{Coord, IntTuple, Node, Shape, Stride};
use crate::Layout;

/// An integer tree as a recursive value, for the helpers that recurse on both operands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Tree {
    Int(u64),
    Tup(Vec<Tree>),
}

/// The notation's form, `(1,(2,3))`, for messages.
impl std::fmt::Display for Tree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tree::Int(x) => write!(f, "{x}"),
            Tree::Tup(items) => {
                f.write_str("(")?;
                for (i, t) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl Tree {
    fn of(t: &IntTuple) -> Tree {
        if t.is_scalar() {
            return Tree::Int(t.leaf(0));
        }
        let mut stack: Vec<Vec<Tree>> = vec![Vec::new()];
        let mut leaf = 0;
        for node in t.recipe() {
            match node {
                Node::Leaf => {
                    stack
                        .last_mut()
                        .expect("open tuple")
                        .push(Tree::Int(t.leaf(leaf)));
                    leaf += 1;
                }
                Node::Push => stack.push(Vec::new()),
                Node::Pop => {
                    let items = stack.pop().expect("balanced recipe");
                    stack.last_mut().expect("open tuple").push(Tree::Tup(items));
                }
            }
        }
        Tree::Tup(stack.pop().expect("outer tuple"))
    }

    fn to_tuple(&self) -> Result<IntTuple, LayoutError> {
        let mut t = IntTuple::EMPTY;
        match self {
            Tree::Int(v) => push(&mut t, |t| t.push_leaf(*v))?,
            Tree::Tup(items) => {
                for it in items {
                    it.write_item(&mut t)?;
                }
            }
        }
        Ok(t)
    }

    fn write_item(&self, t: &mut IntTuple) -> Result<(), LayoutError> {
        match self {
            Tree::Int(v) => push(t, |t| t.push_leaf(*v)),
            Tree::Tup(items) => {
                push(t, |t| t.push_node(Node::Push))?;
                for it in items {
                    it.write_item(t)?;
                }
                push(t, |t| t.push_node(Node::Pop))
            }
        }
    }

    fn product(&self) -> Result<u64, LayoutError> {
        match self {
            Tree::Int(v) => Ok(*v),
            Tree::Tup(items) => items.iter().try_fold(1u64, |acc, it| {
                let p = it.product()?;
                acc.checked_mul(p).ok_or_else(|| {
                    LayoutError::from(CoreError::Overflow {
                        op: '*',
                        lhs: acc,
                        rhs: p,
                    })
                })
            }),
        }
    }
}

fn push(
    t: &mut IntTuple,
    f: impl FnOnce(&mut IntTuple) -> Result<(), CoreError>,
) -> Result<(), LayoutError> {
    f(t).map_err(|e| LayoutError::from_core("int tuple", e))
}

/// Whether `a`'s profile coarsens `b`'s: each integer of `a` stands for a whole item of
/// `b` (an integer or a tuple), each tuple of `a` matches a tuple of `b` of the same rank.
/// A partial order; congruent tuples are weakly congruent both ways.
///
/// ```
/// use strideweave::int_tuple_ops::weakly_congruent;
/// let t = |s: &str| s.parse::<strideweave::IntTuple>().unwrap();
/// assert!(weakly_congruent(&t("(1,2)"), &t("(3,(4,5))")));
/// assert!(!weakly_congruent(&t("(3,(4,5))"), &t("(1,2)")));
/// ```
pub fn weakly_congruent(a: &IntTuple, b: &IntTuple) -> bool {
    covering_leaves(a, b).is_some()
}

/// CuTe's `elem_scale(a, b)`: `a` with each integer multiplied by the size of the item of
/// `b` it stands for; `a` must be weakly congruent with `b`.
///
/// ```
/// use strideweave::int_tuple_ops::elem_scale;
/// let t = |s: &str| s.parse::<strideweave::IntTuple>().unwrap();
/// assert_eq!(elem_scale(&t("(2,3)"), &t("(4,(5,6))")).unwrap(), t("(8,90)"));
/// assert_eq!(elem_scale(&t("2"), &t("(4,(5,6))")).unwrap(), t("240"));
/// ```
pub fn elem_scale(a: &IntTuple, b: &IntTuple) -> Result<IntTuple, LayoutError> {
    let cover = covering_leaves(a, b).ok_or_else(|| {
        LayoutError::value(format!(
            "elem_scale({a}, {b}): {a} is not weakly congruent with {b}"
        ))
    })?;
    let overflow = || {
        LayoutError::value(format!(
            "elem_scale({a}, {b}): the result overflows 64 bits"
        ))
    };
    let mut scale = vec![1u64; a.leaf_count()];
    for (j, &x) in b.leaves().iter().enumerate() {
        let i = cover[j];
        scale[i] = scale[i].checked_mul(x).ok_or_else(overflow)?;
    }
    let mut r = *a;
    for (i, k) in scale.into_iter().enumerate() {
        r.set_leaf(i, a.leaf(i).checked_mul(k).ok_or_else(overflow)?);
    }
    Ok(r)
}

/// Whether shape `a` is compatible with shape `b`: same size, and every coordinate of `a`
/// is a coordinate of `b` (each integer of `a` equals the size of the item of `b` it
/// stands for).
///
/// ```
/// use strideweave::int_tuple_ops::compatible;
/// let t = |s: &str| s.parse::<strideweave::IntTuple>().unwrap();
/// assert!(compatible(&t("(4,6)"), &t("(4,(2,3))")));
/// assert!(!compatible(&t("(4,6)"), &t("(2,12)")));
/// ```
pub fn compatible(a: &IntTuple, b: &IntTuple) -> bool {
    let Some(cover) = covering_leaves(a, b) else {
        return false;
    };
    let mut sizes = vec![Some(1u64); a.leaf_count()];
    for (i, &v) in b.leaves().iter().enumerate() {
        sizes[cover[i]] = sizes[cover[i]].and_then(|s| s.checked_mul(v));
    }
    sizes.iter().zip(a.leaves()).all(|(s, &v)| *s == Some(v))
}

fn int_div(op: &str, a: u64, b: u64) -> Result<u64, LayoutError> {
    if b != 0 && a.is_multiple_of(b) {
        Ok(a / b)
    } else if a != 0 && b.is_multiple_of(a) {
        Ok(1)
    } else {
        Err(LayoutError::from_core(
            format!("{op}({a}, {b})"),
            CoreError::NotEvenlyDivided { extent: a, tile: b },
        ))
    }
}

fn div_tree(a: &Tree, b: &Tree) -> Result<Tree, LayoutError> {
    match (a, b) {
        (Tree::Tup(x), Tree::Tup(y)) => {
            if x.len() != y.len() {
                return Err(LayoutError::value(
                    "shape_div: the tuples have different ranks",
                ));
            }
            Ok(Tree::Tup(
                x.iter()
                    .zip(y)
                    .map(|(x, y)| div_tree(x, y))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (Tree::Tup(x), Tree::Int(_)) => {
            let mut rest = b.clone();
            let mut out = Vec::with_capacity(x.len());
            for xi in x {
                out.push(div_tree(xi, &rest)?);
                rest = div_tree(&rest, xi)?;
            }
            Ok(Tree::Tup(out))
        }
        (Tree::Int(_), Tree::Tup(_)) => div_tree(a, &Tree::Int(b.product()?)),
        (Tree::Int(x), Tree::Int(y)) => Ok(Tree::Int(int_div("shape_div", *x, *y)?)),
    }
}

/// Shape arithmetic needs positive extents.
fn positive(op: &str, a: &IntTuple, b: &IntTuple) -> Result<(), LayoutError> {
    if a.leaves().contains(&0) || b.leaves().contains(&0) {
        return Err(LayoutError::value(format!(
            "{op}({a}, {b}): extents must be at least 1"
        )));
    }
    Ok(())
}

/// CuTe's `shape_div`: `a` with `b` divided out of it, left to right. Tuples divide item
/// by item; an integer `b` is divided out of `a`'s items in turn
/// (`shape_div((4,5,6), 40)` is `(1,1,3)`); at each step one value must divide the other
/// (a larger divisor leaves 1).
pub fn shape_div(a: &IntTuple, b: &IntTuple) -> Result<IntTuple, LayoutError> {
    positive("shape_div", a, b)?;
    div_tree(&Tree::of(a), &Tree::of(b))
        .and_then(|t| t.to_tuple())
        .map_err(|e| LayoutError::value(format!("shape_div({a}, {b}): {}", e.message())))
}

fn mod_tree(a: &Tree, b: &Tree) -> Result<Tree, LayoutError> {
    match (a, b) {
        (Tree::Tup(x), Tree::Tup(y)) => {
            if x.len() != y.len() {
                return Err(LayoutError::value("the tuples have different ranks"));
            }
            Ok(Tree::Tup(
                x.iter()
                    .zip(y)
                    .map(|(x, y)| mod_tree(x, y))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (Tree::Tup(x), Tree::Int(_)) => {
            let mut rest = b.clone();
            let mut out = Vec::with_capacity(x.len());
            for xi in x {
                out.push(mod_tree(xi, &rest)?);
                rest = div_tree(&rest, xi)?;
            }
            Ok(Tree::Tup(out))
        }
        (Tree::Int(_), Tree::Tup(_)) => mod_tree(a, &Tree::Int(b.product()?)),
        (Tree::Int(x), Tree::Int(y)) => {
            int_div("shape_mod", *x, *y)?; // one must divide the other
            Ok(Tree::Int((*x).min(*y)))
        }
    }
}

/// CuTe's shape modulus: the first `b` elements of `a`, kept left to right
/// (`shape_mod((3,6,2,8), 9)` is `(3,3,1,1)`); one value must divide the other at each
/// step.
pub fn shape_mod(a: &IntTuple, b: &IntTuple) -> Result<IntTuple, LayoutError> {
    positive("shape_mod", a, b)?;
    mod_tree(&Tree::of(a), &Tree::of(b))
        .and_then(|t| t.to_tuple())
        .map_err(|e| LayoutError::value(format!("shape_mod({a}, {b}): {}", e.message())))
}

fn ceil_tree(a: &Tree, b: &Tree) -> Result<Tree, LayoutError> {
    match (a, b) {
        (Tree::Tup(x), Tree::Tup(y)) => {
            if x.len() < y.len() {
                return Err(LayoutError::value(
                    "the divisor has more modes than the shape",
                ));
            }
            let one = Tree::Int(1);
            Ok(Tree::Tup(
                x.iter()
                    .enumerate()
                    .map(|(i, xi)| ceil_tree(xi, y.get(i).unwrap_or(&one)))
                    .collect::<Result<_, _>>()?,
            ))
        }
        (Tree::Tup(x), Tree::Int(_)) => {
            let mut rest = b.clone();
            let mut out = Vec::with_capacity(x.len());
            for xi in x {
                out.push(ceil_tree(xi, &rest)?);
                rest = ceil_tree(&rest, xi)?;
            }
            Ok(Tree::Tup(out))
        }
        (Tree::Int(_), Tree::Tup(_)) => ceil_tree(a, &Tree::Int(b.product()?)),
        (Tree::Int(x), Tree::Int(y)) => {
            let (x, y) = (*x, (*y).max(1));
            Ok(Tree::Int(x.div_ceil(y)))
        }
    }
}

/// CuTe's `ceil_div` on shapes: how many tiles of `b` cover `a`, item by item (missing
/// items of `b` are 1) or, for an integer `b`, left to right (`ceil_div((4,6), 8)` is
/// `(1,3)`).
pub fn ceil_div(a: &IntTuple, b: &IntTuple) -> Result<IntTuple, LayoutError> {
    positive("ceil_div", a, b)?;
    ceil_tree(&Tree::of(a), &Tree::of(b))
        .and_then(|t| t.to_tuple())
        .map_err(|e| LayoutError::value(format!("ceil_div({a}, {b}): {}", e.message())))
}

fn evenly(a: &Tree, b: &Tree) -> Result<bool, LayoutError> {
    match (a, b) {
        (_, Tree::Tup(y)) => {
            let x = match a {
                Tree::Tup(x) => x.clone(),
                Tree::Int(_) => vec![a.clone()],
            };
            if y.len() > x.len() {
                return Ok(false);
            }
            for (xi, yi) in x.iter().zip(y) {
                if !evenly(xi, yi)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        (_, Tree::Int(t)) => {
            let tiles = ceil_tree(a, b)?.product()?;
            Ok(t.checked_mul(tiles) == Some(a.product()?))
        }
    }
}

/// CuTe's `evenly_divides(shape, tiler)`: whether tiles of `tiler` (item by item for a
/// tuple) cover `shape` with no partial tile.
///
/// ```
/// use strideweave::int_tuple_ops::evenly_divides;
/// let t = |s: &str| s.parse::<strideweave::IntTuple>().unwrap();
/// assert!(evenly_divides(&t("(8,6)"), &t("(4,3)")).unwrap());
/// assert!(!evenly_divides(&t("(8,6)"), &t("(3,3)")).unwrap());
/// ```
pub fn evenly_divides(shape: &IntTuple, tiler: &IntTuple) -> Result<bool, LayoutError> {
    positive("evenly_divides", shape, tiler)?;
    evenly(&Tree::of(shape), &Tree::of(tiler))
}

/// CuTe's `evenly_divides(shape, tiler)` for a tiler of layouts (one per leading mode of
/// `shape`): mode `i` of `shape` is covered by whole tiles of `tiles[i]`, i.e.
/// `size(a_i) == size(T_i) * size(ceil_div(a_i, T_i))`, where `ceil_div(a_i, T_i)` is the
/// shape of `complement(T_i, a_i)` (the tiles needed: the gaps inside the tile, then
/// `ceil_div(a_i, span)` left to right). More tiles than modes is `false`.
///
/// ```
/// use strideweave::int_tuple_ops::evenly_divides_tiler;
/// use strideweave::Layout;
/// let t = |s: &str| s.parse::<strideweave::IntTuple>().unwrap();
/// let l = |s: &str| s.parse::<Layout>().unwrap();
/// assert!(evenly_divides_tiler(&t("(32,64)"), &[l("8:2"), l("32:1")]).unwrap());
/// assert!(!evenly_divides_tiler(&t("(32,64)"), &[l("8:3"), l("32:1")]).unwrap());
/// ```
pub fn evenly_divides_tiler(shape: &IntTuple, tiles: &[Layout]) -> Result<bool, LayoutError> {
    let what = || {
        format!(
            "evenly_divides({shape}, {})",
            crate::ops::tiler_notation(tiles)
        )
    };
    if shape.leaves().contains(&0) {
        return Err(LayoutError::value(format!(
            "{}: extents must be at least 1",
            what()
        )));
    }
    let modes: Vec<IntTuple> = (0..shape.rank())
        .map(|i| shape.mode(i))
        .collect::<Result<_, _>>()
        .map_err(|e| LayoutError::from_core(what(), e))?;
    if tiles.len() > modes.len() {
        return Ok(false);
    }
    for (a, t) in modes.iter().zip(tiles) {
        // the complement of T (its broadcast modes filtered out, as CuTe does): the gaps
        // between T's sorted leaves, then ceil_div(a, span) copies of the span
        let (gaps, span) = crate::algebra::complement_span(&t.filter())
            .map_err(|e| LayoutError::from_core(what(), e))?;
        let span = IntTuple::new(span)?;
        let rest = ceil_div(a, &span)?
            .product()
            .ok_or_else(|| overflow(&what()))?;
        let covered = t.size().checked_mul(gaps).and_then(|x| x.checked_mul(rest));
        if covered.is_none() || covered != a.product() {
            return Ok(false);
        }
    }
    Ok(true)
}

fn overflow(what: &str) -> LayoutError {
    LayoutError::value(format!("{what}: arithmetic overflows 64 bits"))
}

/// The exclusive prefix product of `a`'s leaves, congruent with `a`: the strides of the
/// compact column-major layout of `a` (`prefix_product((2,(3,4)))` is `(1,(2,6))`).
pub fn prefix_product(a: &IntTuple) -> Result<IntTuple, LayoutError> {
    Layout::compact_col_major(*a)
        .map(|l| *l.stride().as_tuple())
        .map_err(|e| LayoutError::from_core(format!("prefix_product({a})"), e))
}

/// The sum of the products of corresponding leaves of two congruent tuples
/// (`inner_product((2,(3,4)), (1,(2,6)))` is `32`).
pub fn inner_product(a: &IntTuple, b: &IntTuple) -> Result<u64, LayoutError> {
    if !a.congruent(b) {
        return Err(LayoutError::value(format!(
            "inner_product({a}, {b}): the tuples are not congruent"
        )));
    }
    a.leaves()
        .iter()
        .zip(b.leaves())
        .try_fold(0u64, |acc, (&x, &y)| {
            x.checked_mul(y)
                .and_then(|p| p.checked_add(acc))
                .ok_or_else(|| {
                    LayoutError::value(format!("inner_product({a}, {b}) overflows 64 bits"))
                })
        })
}

fn mixed(op: &str, a: &Tree, b: &Tree) -> LayoutError {
    LayoutError::type_error(format!(
        "{op}: an integer and a tuple are not comparable ({a} vs {b})"
    ))
}

fn lex(a: &Tree, b: &Tree, reverse: bool) -> Result<bool, LayoutError> {
    match (a, b) {
        (Tree::Int(x), Tree::Int(y)) => Ok(x < y),
        (Tree::Tup(x), Tree::Tup(y)) => {
            for i in 0.. {
                if i == y.len() {
                    return Ok(false);
                }
                if i == x.len() {
                    return Ok(true);
                }
                let (xi, yi) = if reverse {
                    (&x[x.len() - 1 - i], &y[y.len() - 1 - i])
                } else {
                    (&x[i], &y[i])
                };
                if lex(xi, yi, reverse)? {
                    return Ok(true);
                }
                if xi != yi {
                    return Ok(false);
                }
            }
            unreachable!("the loop returns once either tuple is exhausted")
        }
        _ => Err(mixed(if reverse { "colex_less" } else { "lex_less" }, a, b)),
    }
}

/// Lexicographic order, first item most significant (the order of coordinates in a
/// row-major layout): `lex_less((1,0), (0,1))` is false.
pub fn lex_less(a: &IntTuple, b: &IntTuple) -> Result<bool, LayoutError> {
    lex(&Tree::of(a), &Tree::of(b), false)
}

/// Colexicographic order, last item most significant (the order of coordinates in a
/// column-major layout): `colex_less((1,0), (0,1))` is true.
pub fn colex_less(a: &IntTuple, b: &IntTuple) -> Result<bool, LayoutError> {
    lex(&Tree::of(a), &Tree::of(b), true)
}

fn elem(a: &Tree, b: &Tree) -> Result<bool, LayoutError> {
    match (a, b) {
        (Tree::Int(x), Tree::Int(y)) => Ok(x < y),
        (Tree::Tup(x), Tree::Tup(y)) => {
            if x.len() > y.len() {
                return Ok(false);
            }
            for (xi, yi) in x.iter().zip(y) {
                if !elem(xi, yi)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Err(mixed("elem_less", a, b)),
    }
}

/// Element-wise order: every item of `a` below the matching item of `b` (how CuTe asks
/// whether a coordinate lies inside a shape): `elem_less((1,2), (2,3))` is true.
pub fn elem_less(a: &IntTuple, b: &IntTuple) -> Result<bool, LayoutError> {
    elem(&Tree::of(a), &Tree::of(b))
}

/// The index of coordinate `coord` in `shape` under `stride` (the compact column-major
/// strides when `None`): CuTe's `crd2idx`. The coordinate may give one integer for any
/// sub-tree, as [`Layout::index`] allows; out-of-domain values are errors.
///
/// ```
/// use strideweave::int_tuple_ops::crd2idx;
/// use strideweave::{Coord, Shape};
/// let s = Shape::new((2, (3, 4))).unwrap();
/// assert_eq!(crd2idx(&Coord::new((1, (2, 3))).unwrap(), &s, None).unwrap(), 23);
/// ```
pub fn crd2idx(coord: &Coord, shape: &Shape, stride: Option<&Stride>) -> Result<u64, LayoutError> {
    let call = match stride {
        Some(d) => format!("crd2idx({coord}, {shape}, {d})"),
        None => format!("crd2idx({coord}, {shape})"),
    };
    index_in(coord, shape, stride, &call)
}

/// [`Layout::index`] of `coord` in `shape:stride`, its errors naming `call` (what the
/// user wrote) rather than a layout they never built.
fn index_in(
    coord: &Coord,
    shape: &Shape,
    stride: Option<&Stride>,
    call: &str,
) -> Result<u64, LayoutError> {
    let layout = match stride {
        Some(d) => Layout::new(*shape, *d)?,
        None => Layout::col_major(*shape)?,
    };
    layout.index_tuple(coord.as_tuple()).map_err(|e| match e {
        CoreError::CoordinateMismatch => LayoutError::value(format!(
            "{call}: coordinate {coord} does not match the hierarchy of shape {shape}"
        )),
        e => LayoutError::from_core(call, e),
    })
}

/// The full coordinate, congruent with `shape`, of `coord` (an integer key or a partly
/// hierarchical coordinate) in column-major order: CuTe's `idx2crd`.
///
/// ```
/// use strideweave::int_tuple_ops::idx2crd;
/// use strideweave::{Coord, Shape};
/// let s = Shape::new((2, (3, 4))).unwrap();
/// assert_eq!(idx2crd(&Coord::linear(23), &s).unwrap().to_string(), "(1,(2,3))");
/// assert_eq!(idx2crd(&Coord::new((1, 11)).unwrap(), &s).unwrap().to_string(), "(1,(2,3))");
/// ```
pub fn idx2crd(coord: &Coord, shape: &Shape) -> Result<Coord, LayoutError> {
    let mut i = index_in(coord, shape, None, &format!("idx2crd({coord}, {shape})"))?;
    let mut out = *shape.as_tuple();
    for k in 0..out.leaf_count() {
        let s = out.leaf(k);
        out.set_leaf(k, i % s);
        i /= s;
    }
    Coord::from_tuple(out)
}
