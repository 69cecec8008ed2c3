//! The `eval` language of `spec/layout-notation.md`: values and function calls over
//! layouts, evaluated to one canonical output line each.
//!
//! ```
//! use strideweave::eval::eval_line;
//! assert_eq!(eval_line("compose(20:2, (5,4):(4,1))"), "(5,4):(8,2)");
//! assert_eq!(eval_line("cosize((2,3):(1,4))"), "10");
//! assert_eq!(
//!     eval_line("layout((2,(3,4)),(1,2,6))"),
//!     "error: value: shape (2,(3,4)) and stride (1,2,6) are not congruent"
//! );
//! ```

use crate::algebra::Arrangement;
use crate::error::LayoutError;
use crate::int_tuple::{Coord, IntTuple, Node, Shape, Stride};
use crate::int_tuple_ops as tuples;
use crate::notation::{make_layout, Parser};
use crate::ops::tiler_notation;
use crate::slice::SliceCoord;
use crate::tree::{profile_notation, Tree, TreeItem};
use crate::Layout;
use std::fmt;

/// A value of the `eval` language. Values live for one expression, so a large inline
/// `Layout` variant costs less than boxing it.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer tree; a single integer is a rank-1 tuple.
    Tuple(IntTuple),
    /// A layout.
    Layout(Layout),
    /// `[L, L, ...]`.
    Tiler(Vec<Layout>),
    /// `tree(...)`.
    Tree(Tree),
    /// `true` / `false`.
    Bool(bool),
    /// `none`.
    None,
    /// A profile (output only).
    Profile(Vec<Node>),
    /// A coordinate with `_` items, e.g. `(_,2)`, for `slice` and `dice`.
    Slice(SliceCoord),
    /// `LayoutLeft` or `LayoutRight`, the compact orders of `make_layout`.
    Major(Major),
    /// Two values, printed `(X,Y)` (`slice_and_offset`'s layout and offset).
    Pair(Box<Value>, Box<Value>),
    /// A tiler with `_` entries, e.g. `[_,4:1]` (`None` is `_`: that mode is kept).
    TilerWithHoles(Vec<Option<Layout>>),
    /// A swizzle `Sw<B,M,S>`.
    Swizzle(crate::Swizzle),
    /// A swizzled layout `Sw<B,M,S> o [OFFSET o] L`.
    Composed(crate::ComposedLayout),
    /// A coordinate layout with scaled-basis strides, `(4,8):(1@0,1@1)`.
    CoordLayout(crate::CoordLayout),
}

/// Which mode of a compact layout is fastest: CuTe's `LayoutLeft` (the first,
/// column-major) or `LayoutRight` (the last, row-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    /// First mode fastest.
    Left,
    /// Last mode fastest.
    Right,
}

impl Value {
    /// What kind of value this is, for messages (`a layout`, `a swizzle`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Tuple(t) if t.is_scalar() => "an integer",
            Value::Tuple(_) => "an int tuple",
            Value::Layout(_) => "a layout",
            Value::Tiler(_) => "a tiler",
            Value::Tree(_) => "a tree",
            Value::Bool(_) => "a boolean",
            Value::None => "none",
            Value::Profile(_) => "a profile",
            Value::Slice(_) => "a slicing coordinate",
            Value::Major(_) => "a major order",
            Value::Pair(..) => "a pair",
            Value::TilerWithHoles(_) => "a tiler",
            Value::Swizzle(_) => "a swizzle",
            Value::Composed(_) => "a swizzled layout",
            Value::CoordLayout(_) => "a coordinate layout",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Tuple(t) => write!(f, "{t}"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Tiler(ts) => f.write_str(&tiler_notation(ts)),
            Value::Tree(t) => write!(f, "{t}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::None => f.write_str("none"),
            Value::Profile(p) => f.write_str(&profile_notation(p)),
            Value::Slice(c) => write!(f, "{c}"),
            Value::Major(Major::Left) => f.write_str("LayoutLeft"),
            Value::Major(Major::Right) => f.write_str("LayoutRight"),
            Value::Pair(x, y) => write!(f, "({x},{y})"),
            Value::TilerWithHoles(t) => f.write_str(&crate::layout_ops::holes_notation(t)),
            Value::Swizzle(sw) => write!(f, "{sw}"),
            Value::Composed(c) => write!(f, "{c}"),
            Value::CoordLayout(c) => write!(f, "{c}"),
        }
    }
}

/// Longest expression [`eval`] accepts, in bytes (64 KiB, forty times the longest
/// 32-leaf layout with 20-digit values): longer text is rejected before it is parsed, so
/// one line never costs more than a few MB.
pub const MAX_EXPR_BYTES: usize = 64 * 1024;

/// Most arguments a call may have: `permute` of a layout with the most modes,
/// [`MAX_LEAVES`](crate::MAX_LEAVES), takes one more. A longer list is rejected as it is
/// read, before it is built.
pub const MAX_ARGS: usize = crate::MAX_LEAVES + 1;

/// Most layouts a tiler `[L, ...]` may hold: one per mode of the largest layout.
pub const MAX_TILES: usize = crate::MAX_LEAVES;

/// Evaluates one expression to a value.
///
/// ```
/// use strideweave::eval::{eval, MAX_EXPR_BYTES};
/// assert!(eval(&"(".repeat(MAX_EXPR_BYTES + 1)).unwrap_err().to_string().contains("longer than"));
/// let permute = format!("permute(4:1{})", ",0".repeat(40));
/// assert!(eval(&permute).unwrap_err().to_string().contains("at most 33 arguments"));
/// ```
pub fn eval(text: &str) -> Result<Value, LayoutError> {
    if text.len() > MAX_EXPR_BYTES {
        return Err(LayoutError::syntax(format!(
            "expression is {} bytes long, longer than the limit of {MAX_EXPR_BYTES}",
            text.len()
        )));
    }
    // one injectivity-search budget for the whole expression, however many checks it nests
    crate::injective::sharing_search_steps(|| {
        let mut p = Parser::new(text);
        let v = expr(&mut p)?;
        p.finish()?;
        Ok(v)
    })
}

/// Evaluates one expression to its output line: the value, or `error: KIND: MESSAGE`.
pub fn eval_line(text: &str) -> String {
    match eval(text) {
        Ok(v) => v.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// One expression: a literal value or a function call.
fn expr(p: &mut Parser) -> Result<Value, LayoutError> {
    p.enter()?;
    let v = expr_inner(p);
    p.leave();
    v
}

/// Dispatches on the first character. Each kind of value is read by its own function so
/// that the recursion (`expr` inside tilers and calls) keeps small stack frames: one
/// function holding every kind's temporaries took 35 KB a level unoptimized, and 64
/// levels overflowed a 2 MiB thread stack.
fn expr_inner(p: &mut Parser) -> Result<Value, LayoutError> {
    match p.peek() {
        Some('[') => tiler_literal(p),
        Some(c) if c.is_ascii_digit() || c == '(' || c == '-' => tuple_or_layout_literal(p),
        Some(c) if c.is_ascii_alphabetic() || c == '_' => named_value(p),
        _ => Err(p.unexpected("a value")),
    }
}

/// `[L, L, ...]`, or with `_` entries `[_, L]`.
fn tiler_literal(p: &mut Parser) -> Result<Value, LayoutError> {
    p.expect('[')?;
    let mut tiles = Vec::new();
    let mut holes = false;
    if !p.eat(']') {
        loop {
            let start = p.pos();
            if tiles.len() == MAX_TILES {
                return Err(p.error(format!(
                    "a tiler holds at most {MAX_TILES} layouts (one per mode)"
                )));
            }
            match expr(p)? {
                Value::Layout(l) => tiles.push(Some(l)),
                Value::Tuple(t) if t.is_scalar() => tiles.push(Some(
                    Layout::leaf(t.leaf(0), 1).map_err(|e| LayoutError::from_core("tile", e))?,
                )),
                Value::Slice(c) if c.to_string() == "_" => {
                    holes = true;
                    tiles.push(None);
                }
                other => {
                    return Err(LayoutError::type_error(format!(
                        "a tiler holds layouts, found {} at column {}",
                        other.kind(),
                        start + 1
                    )))
                }
            }
            if p.eat(']') {
                break;
            }
            if !p.eat(',') {
                return Err(p.unexpected("',' or ']'"));
            }
        }
    }
    if holes {
        return Ok(Value::TilerWithHoles(tiles));
    }
    Ok(Value::Tiler(tiles.into_iter().flatten().collect()))
}

/// An integer tuple, a layout `S:D`, or a slicing coordinate `(_,2)`.
fn tuple_or_layout_literal(p: &mut Parser) -> Result<Value, LayoutError> {
    let start = p.pos();
    let shape = match p.int_tuple() {
        Ok(t) => t,
        Err(e) => {
            // `(_,2)`: a slicing coordinate
            p.rewind(start);
            match SliceCoord::parse_from(p) {
                Ok(c) if c.has_holes() => {
                    if p.peek() == Some(':') {
                        return Err(p.error("a layout's shape cannot hold '_'"));
                    }
                    return Ok(Value::Slice(c));
                }
                // Both readings failed: when the tuple reading stopped at a character
                // (its '_') and the coordinate reading past it or on a limit (too deep,
                // too many items), report the coordinate's error.
                Err(se)
                    if e.column().is_some() && se.column().is_none_or(|c| Some(c) > e.column()) =>
                {
                    return Err(se)
                }
                _ => return Err(e),
            }
        }
    };
    if p.eat(':') {
        return crate::eval_ext::layout_literal(p, shape);
    }
    Ok(Value::Tuple(shape))
}

/// A keyword (`true`, `LayoutLeft`, `tree(...)`, `Sw<...>`, ...) or a function call.
fn named_value(p: &mut Parser) -> Result<Value, LayoutError> {
    let start = p.pos();
    let name = p.ident().unwrap_or_default();
    match name {
        "Sw" => return crate::eval_ext::swizzle_literal(p, start, expr),
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        "none" => return Ok(Value::None),
        "_" => return Ok(Value::Slice("_".parse()?)),
        "LayoutLeft" => return Ok(Value::Major(Major::Left)),
        "LayoutRight" => return Ok(Value::Major(Major::Right)),
        "tree" => return Ok(Value::Tree(tree_items(p)?)),
        _ => {}
    }
    if !FUNCTIONS.contains(&name) && !crate::eval_ext::FUNCTIONS.contains(&name) {
        return Err(p.error_at(start, format!("unknown function '{name}'")));
    }
    p.expect('(')?;
    let mut args = Vec::new();
    if !p.eat(')') {
        loop {
            if args.len() == MAX_ARGS {
                return Err(p.error(format!("{name} takes at most {MAX_ARGS} arguments")));
            }
            args.push(expr(p)?);
            if p.eat(')') {
                break;
            }
            if !p.eat(',') {
                return Err(p.unexpected("',' or ')'"));
            }
        }
    }
    call(name, args)
}

/// `(item, ...)` of a `tree(...)`.
fn tree_items(p: &mut Parser) -> Result<Tree, LayoutError> {
    p.enter()?;
    let t = tree_items_inner(p);
    p.leave();
    t
}

fn tree_items_inner(p: &mut Parser) -> Result<Tree, LayoutError> {
    p.expect('(')?;
    let mut items = Vec::new();
    if p.eat(')') {
        return Tree::new(items);
    }
    loop {
        if p.integer()?.is_some() {
            items.push(TreeItem::Leaf);
        } else {
            match p.ident() {
                Some("leaf") => items.push(TreeItem::Leaf),
                Some("tree") => items.push(TreeItem::Tree(tree_items(p)?)),
                Some("id") => {
                    p.expect('(')?;
                    let n = match p
                        .integer()
                        .map_err(|e| LayoutError::value(format!("source id {}", e.message())))?
                    {
                        Some(n) => n,
                        None if p.peek() == Some(')') => {
                            return Err(p.unexpected("a non-negative integer source id"));
                        }
                        None => {
                            let found = match p.ident() {
                                Some(word) => format!("'{word}'"),
                                None => {
                                    let v = expr(p)?;
                                    format!("{} {v}", v.kind())
                                }
                            };
                            return Err(LayoutError::type_error(format!(
                                "id expects an integer source id, found {found}"
                            )));
                        }
                    };
                    p.expect(')')?;
                    let n = usize::try_from(n)
                        .map_err(|_| LayoutError::value(format!("source id {n} is too large")))?;
                    items.push(TreeItem::Id(n));
                }
                Some(other) => {
                    return Err(LayoutError::value(format!(
                        "tree item '{other}' is neither an integer, a leaf marker nor a tree"
                    )));
                }
                None => {
                    let v = expr(p)?;
                    return Err(LayoutError::value(format!(
                        "tree item {} {v} is neither an integer, a leaf marker nor a tree",
                        v.kind()
                    )));
                }
            }
        }
        if p.eat(')') {
            break;
        }
        if !p.eat(',') {
            if p.peek() == Some(':') {
                return Err(LayoutError::value(
                    "tree item is a layout, which is neither an integer, a leaf marker nor a tree",
                ));
            }
            return Err(p.unexpected("',' or ')'"));
        }
    }
    Tree::new(items)
}

/// Every function name `eval` knows; each has an example in the reference, `docs/eval.md`.
pub const FUNCTIONS: &[&str] = &[
    "layout",
    "shape",
    "stride",
    "size",
    "cosize",
    "rank",
    "depth",
    "profile",
    "is_injective",
    "index",
    "get",
    "concat",
    "append",
    "permute",
    "broadcast_to",
    "uniform_preimage_extent",
    "rearrange",
    "compose",
    "complement",
    "divide",
    "logical_divide",
    "divide_tiler",
    "zipped_divide",
    "tiled_divide",
    "coalesce",
    "filter",
    "right_inverse",
    "left_inverse",
    "logical_product",
    "blocked_product",
    "raked_product",
    "can_compose",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "flat_divide",
    "tile_to_shape",
    "make_layout",
    "make_ordered_layout",
    "make_layout_like",
    "upcast",
    "downcast",
    "recast_layout",
    "nullspace",
    "select",
    "replace",
    "slice",
    "dice",
    "slice_and_offset",
    "idx2crd",
    "crd2idx",
    "congruent",
    "weakly_congruent",
    "compatible",
    "elem_scale",
    "product",
    "domain_distribute",
    "evenly_divides",
    "shape_div",
    "shape_mod",
    "ceil_div",
    "prefix_product",
    "inner_product",
    "lex_less",
    "colex_less",
    "elem_less",
    "flatten",
    "group",
    "max_common_vector",
    "max_common_layout",
];

fn arity(name: &str, args: &[Value], min: usize, max: usize) -> Result<(), LayoutError> {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            format!("{min}")
        } else if max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} or {max}")
        };
        return Err(LayoutError::type_error(format!(
            "{name} takes {want} argument{}, got {}",
            if want == "1" { "" } else { "s" },
            args.len()
        )));
    }
    Ok(())
}

/// Re-kinds an argument error as a value error, where the spec says `ValueError`.
fn as_value(e: LayoutError) -> LayoutError {
    LayoutError::value(e.message().to_string())
}

fn want_layout(name: &str, pos: usize, v: &Value) -> Result<Layout, LayoutError> {
    match v {
        Value::Layout(l) => Ok(*l),
        other => Err(LayoutError::type_error(format!(
            "{name} expects a layout as argument {}, found {} {other}",
            pos + 1,
            other.kind()
        ))),
    }
}

fn want_tuple(name: &str, pos: usize, what: &str, v: &Value) -> Result<IntTuple, LayoutError> {
    match v {
        Value::Tuple(t) => Ok(*t),
        other => Err(LayoutError::type_error(format!(
            "{name} expects {what} as argument {}, found {} {other}",
            pos + 1,
            other.kind()
        ))),
    }
}

fn want_int(name: &str, pos: usize, v: &Value) -> Result<u64, LayoutError> {
    match v {
        Value::Tuple(t) if t.is_scalar() => Ok(t.leaf(0)),
        other => Err(LayoutError::type_error(format!(
            "{name} expects an integer as argument {}, found {} {other}",
            pos + 1,
            other.kind()
        ))),
    }
}

fn want_index(name: &str, pos: usize, v: &Value) -> Result<usize, LayoutError> {
    let n = want_int(name, pos, v)?;
    usize::try_from(n).map_err(|_| LayoutError::value(format!("{name}: index {n} is too large")))
}

fn want_shape(name: &str, pos: usize, v: &Value) -> Result<Shape, LayoutError> {
    Shape::from_tuple(want_tuple(name, pos, "a shape", v)?)
}

fn want_tree(name: &str, pos: usize, v: &Value) -> Result<Tree, LayoutError> {
    match v {
        Value::Tree(t) => Ok(t.clone()),
        other => Err(LayoutError::type_error(format!(
            "{name} expects a tree as argument {}, found {} {other}",
            pos + 1,
            other.kind()
        ))),
    }
}

/// A tiler argument: `[L,...]`, or a shape whose integer items are unit-stride tiles.
fn want_tiles(name: &str, pos: usize, v: &Value) -> Result<Vec<Layout>, LayoutError> {
    match v {
        Value::Tiler(ts) => Ok(ts.clone()),
        Value::Tuple(t) => {
            let s = Shape::from_tuple(*t)?;
            (0..t.rank())
                .map(|i| {
                    let m = t.mode(i).map_err(|e| LayoutError::from_core(name, e))?;
                    if !m.is_scalar() {
                        return Err(LayoutError::type_error(format!(
                            "{name}: shape tiler {s} has a nested item; give a tiler of layouts"
                        )));
                    }
                    Layout::leaf(m.leaf(0), 1).map_err(|e| LayoutError::from_core(name, e))
                })
                .collect()
        }
        Value::TilerWithHoles(_) => Err(LayoutError::type_error(format!(
            "{name}: '_' tiles work with compose, divide and logical_product; give a layout for every mode"
        ))),
        other => Err(LayoutError::type_error(format!(
            "{name} expects a tiler as argument {}, found {} {other}",
            pos + 1,
            other.kind()
        ))),
    }
}

fn tuple_of(v: &Value) -> Option<IntTuple> {
    match v {
        Value::Layout(l) => Some(*l.shape().as_tuple()),
        Value::Tuple(t) => Some(*t),
        _ => None,
    }
}

pub(crate) fn call(name: &str, args: Vec<Value>) -> Result<Value, LayoutError> {
    if let Some(v) = crate::eval_ext::call(name, &args)? {
        return Ok(v);
    }
    let int = |v: u64| Value::Tuple(IntTuple::scalar(v));
    // CuTe reads a single integer given to divide or product as the layout `n:1` (the
    // whole layout is divided or repeated); a tuple of several is a by-mode tiler.
    let mut a = args;
    if matches!(
        name,
        "divide"
            | "logical_divide"
            | "zipped_divide"
            | "tiled_divide"
            | "flat_divide"
            | "logical_product"
            | "zipped_product"
            | "tiled_product"
            | "flat_product"
    ) {
        if let Some(Value::Tuple(t)) = a.get(1) {
            if t.is_scalar() {
                a[1] = Value::Layout(
                    Layout::leaf(t.leaf(0), 1).map_err(|e| LayoutError::from_core(name, e))?,
                );
            }
        }
    }
    let a = &a;
    let layout1 = |n: &str| -> Result<Layout, LayoutError> {
        arity(n, a, 1, 1)?;
        want_layout(n, 0, &a[0])
    };
    let layout2 = |n: &str| -> Result<(Layout, Layout), LayoutError> {
        arity(n, a, 2, 2)?;
        Ok((want_layout(n, 0, &a[0])?, want_layout(n, 1, &a[1])?))
    };
    Ok(match name {
        "layout" => {
            // the spec makes a non-Shape or non-Stride argument a value error
            arity(name, a, 2, 2)?;
            let s = want_tuple(name, 0, "a shape", &a[0]).map_err(as_value)?;
            let d = want_tuple(name, 1, "a stride", &a[1]).map_err(as_value)?;
            Value::Layout(make_layout(s, d)?)
        }
        "shape" => Value::Tuple(*layout1(name)?.shape().as_tuple()),
        "stride" => Value::Tuple(*layout1(name)?.stride().as_tuple()),
        "size" | "rank" | "depth" | "profile" => {
            arity(name, a, 1, 1)?;
            let t = tuple_of(&a[0]).ok_or_else(|| {
                LayoutError::type_error(format!(
                    "{name} expects a layout or an int tuple, found {} {}",
                    a[0].kind(),
                    a[0]
                ))
            })?;
            match name {
                "size" => int(t
                    .product()
                    .ok_or_else(|| LayoutError::value(format!("size of {t} overflows 64 bits")))?),
                "rank" => int(t.rank() as u64),
                "depth" => int(t.depth() as u64),
                _ => Value::Profile(t.recipe().to_vec()),
            }
        }
        "domain_distribute" => {
            arity(name, a, 2, 2)?;
            let shape = want_shape(name, 0, &a[0])?;
            Value::Layout(Layout::domain_distribute(
                &shape,
                want_int(name, 1, &a[1])?,
            )?)
        }
        "product" => {
            // CuTe's `product(IntTuple)`: the product of the leaves (`size` of a shape)
            arity(name, a, 1, 1)?;
            let t = want_tuple(name, 0, "an int tuple", &a[0])?;
            int(t
                .product()
                .ok_or_else(|| LayoutError::value(format!("product of {t} overflows 64 bits")))?)
        }
        "cosize" => int(layout1(name)?.cosize()),
        "is_injective" => Value::Bool(layout1(name)?.try_is_injective()?),
        "index" => {
            // the spec makes a non-Layout first argument a value error
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0]).map_err(as_value)?;
            let key = want_tuple(name, 1, "a coordinate", &a[1])?;
            int(l.index(&Coord::from_tuple(key)?)?)
        }
        "get" => {
            arity(name, a, 2, 3)?;
            let i = want_index(name, 1, &a[1])?;
            let j = if a.len() == 3 {
                Some(want_index(name, 2, &a[2])?)
            } else {
                None
            };
            match &a[0] {
                Value::Layout(l) => Value::Layout(match j {
                    Some(j) => l.slice(i, j)?,
                    None => l.get(i)?,
                }),
                Value::Tuple(t) => {
                    let s = crate::int_tuple::Coord::from_tuple(*t)?;
                    Value::Tuple(
                        *match j {
                            Some(j) => s.slice(i, j)?,
                            None => s.get(i)?,
                        }
                        .as_tuple(),
                    )
                }
                other => {
                    return Err(LayoutError::type_error(format!(
                        "get expects a layout or an int tuple, found {} {other}",
                        other.kind()
                    )))
                }
            }
        }
        "concat" => {
            let (x, y) = layout2(name)?;
            Value::Layout(x.concat(&y)?)
        }
        "append" => {
            let (x, y) = layout2(name)?;
            Value::Layout(x.append(&y)?)
        }
        "permute" => {
            arity(name, a, 1, usize::MAX)?;
            let l = want_layout(name, 0, &a[0])?;
            // the order as integers, or as one tuple of them (the spec's single iterable)
            let order = match &a[1..] {
                [Value::Tuple(t)] if !t.is_scalar() => (0..t.rank())
                    .map(|k| {
                        let m = t.mode(k).map_err(|e| LayoutError::from_core(name, e))?;
                        want_index(name, 1, &Value::Tuple(m))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                rest => rest
                    .iter()
                    .enumerate()
                    .map(|(k, v)| want_index(name, k + 1, v))
                    .collect::<Result<Vec<_>, _>>()?,
            };
            Value::Layout(l.permute(&order)?)
        }
        "broadcast_to" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(l.broadcast_to(&want_shape(name, 1, &a[1])?)?)
        }
        "uniform_preimage_extent" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            match l.uniform_preimage_extent(&want_shape(name, 1, &a[1])?) {
                Some(k) => int(k),
                None => Value::None,
            }
        }
        "rearrange" => {
            arity(name, a, 2, 3)?;
            let l = want_layout(name, 0, &a[0])?;
            // the spec makes a non-Tree output or selection a value error
            let out = want_tree(name, 1, &a[1]).map_err(as_value)?;
            let sel = if a.len() == 3 {
                Some(want_tree(name, 2, &a[2]).map_err(as_value)?)
            } else {
                None
            };
            Value::Layout(l.rearrange(&out, sel.as_ref())?)
        }
        "compose" | "can_compose" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            let r = match &a[1] {
                Value::Layout(b) => l.compose(b),
                Value::Tuple(t) => l.compose(&Shape::from_tuple(*t)?),
                Value::Tiler(ts) => l.compose(ts),
                Value::TilerWithHoles(ts) => l.compose_by_mode(ts),
                other => {
                    return Err(LayoutError::type_error(format!(
                    "compose expects a layout, a shape or a tiler as argument 2, found {} {other}",
                    other.kind()
                )))
                }
            };
            if name == "can_compose" {
                Value::Bool(r.is_ok())
            } else {
                Value::Layout(r?)
            }
        }
        "complement" => {
            arity(name, a, 1, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            // CuTe reads a layout cotarget as its shape
            if let Some(Value::Layout(c)) = a.get(1) {
                return Ok(Value::Layout(l.complement_shape(&c.shape())?));
            }
            if let Some(Value::Tuple(t)) = a
                .get(1)
                .filter(|v| !matches!(v, Value::Tuple(t) if t.is_scalar()))
            {
                return Ok(Value::Layout(l.complement_shape(&Shape::from_tuple(*t)?)?));
            }
            let m = if a.len() == 2 {
                want_int(name, 1, &a[1])?
            } else {
                l.cosize()
            };
            Value::Layout(l.complement(m)?)
        }
        "divide" | "logical_divide" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(match &a[1] {
                Value::Layout(b) => l.divide(b)?,
                Value::Tuple(t) => l.divide_shape(&Shape::from_tuple(*t)?)?,
                Value::TilerWithHoles(ts) => l.divide_by_mode(ts)?,
                other => l.divide_tiler(&want_tiles(name, 1, other)?)?,
            })
        }
        "divide_tiler" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(match &a[1] {
                Value::Tuple(t) => l.divide_shape(&Shape::from_tuple(*t)?)?,
                Value::TilerWithHoles(ts) => l.divide_by_mode(ts)?,
                other => l.divide_tiler(&want_tiles(name, 1, other)?)?,
            })
        }
        "zipped_divide" | "tiled_divide" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            if let Value::Layout(b) = &a[1] {
                // CuTe: by one layout, zipped is the division itself and tiled spreads
                // the rest mode (`(tile, rest0, rest1, ...)`)
                let how = if name == "zipped_divide" {
                    Arrangement::Zipped
                } else {
                    Arrangement::Tiled
                };
                return Ok(Value::Layout(l.divide_by(b, how)?));
            }
            let tiles = want_tiles(name, 1, &a[1])?;
            Value::Layout(if name == "zipped_divide" {
                l.zipped_divide(&tiles)?
            } else {
                l.tiled_divide(&tiles)?
            })
        }
        "coalesce" => {
            arity(name, a, 1, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(if a.len() == 2 {
                l.coalesce_by(&want_tuple(name, 1, "a profile", &a[1])?)?
            } else {
                l.coalesce()
            })
        }
        "filter" => Value::Layout(layout1(name)?.filter()),
        "right_inverse" => Value::Layout(layout1(name)?.right_inverse()?),
        "left_inverse" => Value::Layout(layout1(name)?.left_inverse()?),
        "logical_product" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(match &a[1] {
                Value::Layout(b) => l.logical_product(b)?,
                Value::TilerWithHoles(ts) => l.logical_product_by_mode(ts)?,
                other => l.logical_product_tiler(&want_tiles(name, 1, other)?)?,
            })
        }
        "blocked_product" => {
            let (x, y) = layout2(name)?;
            Value::Layout(x.blocked_product(&y)?)
        }
        "raked_product" => {
            let (x, y) = layout2(name)?;
            Value::Layout(x.raked_product(&y)?)
        }
        "flatten" => match a.first() {
            // CuTe flattens int tuples too: the leaves in order
            Some(Value::Tuple(t)) if a.len() == 1 => Value::Tuple(
                IntTuple::from_leaves(t.leaves()).map_err(|e| LayoutError::from_core(name, e))?,
            ),
            _ => Value::Layout(layout1(name)?.flatten()),
        },
        "group" => {
            arity(name, a, 3, 3)?;
            let l = want_layout(name, 0, &a[0])?;
            let (start, end) = (want_int(name, 1, &a[1])?, want_int(name, 2, &a[2])?);
            let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
            Value::Layout(l.group(to_usize(start), to_usize(end))?)
        }
        "max_common_vector" => {
            let (x, y) = layout2(name)?;
            int(x.max_common_vector(&y))
        }
        "max_common_layout" => {
            let (x, y) = layout2(name)?;
            Value::Layout(x.max_common_layout(&y))
        }
        _ => return call_more(name, a),
    })
}

/// The functions added for CuTe parity: arranged products and divides, constructors,
/// recasting, selection and slicing, and the int-tuple helpers.
fn call_more(name: &str, a: &[Value]) -> Result<Value, LayoutError> {
    let int = |v: u64| Value::Tuple(IntTuple::scalar(v));
    let tuple2 = |what: &str| -> Result<(IntTuple, IntTuple), LayoutError> {
        arity(name, a, 2, 2)?;
        Ok((
            want_tuple(name, 0, what, &a[0])?,
            want_tuple(name, 1, what, &a[1])?,
        ))
    };
    let coord = |pos: usize| -> Result<SliceCoord, LayoutError> {
        match &a[pos] {
            Value::Slice(c) => Ok(*c),
            Value::Tuple(t) => Ok(SliceCoord::from_tuple(*t)),
            other => Err(LayoutError::type_error(format!(
                "{name} expects a coordinate as argument {}, found {} {other}",
                pos + 1,
                other.kind()
            ))),
        }
    };
    Ok(match name {
        "zipped_product" | "tiled_product" | "flat_product" | "flat_divide" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            let how = match name {
                "zipped_product" => Arrangement::Zipped,
                "tiled_product" => Arrangement::Tiled,
                _ => Arrangement::Flat,
            };
            let divide = name == "flat_divide";
            Value::Layout(match &a[1] {
                Value::Layout(b) if divide => l.divide_by(b, how)?,
                Value::Layout(b) => l.product_by(b, how)?,
                other => {
                    let tiles = want_tiles(name, 1, other)?;
                    match name {
                        "zipped_product" => l.zipped_product(&tiles)?,
                        "tiled_product" => l.tiled_product(&tiles)?,
                        "flat_product" => l.flat_product(&tiles)?,
                        _ => l.flat_divide(&tiles)?,
                    }
                }
            })
        }
        "tile_to_shape" => {
            arity(name, a, 2, 3)?;
            let l = want_layout(name, 0, &a[0])?;
            let target = want_shape(name, 1, &a[1])?;
            let order = match a.get(2) {
                None | Some(Value::Major(Major::Left)) => None,
                Some(Value::Major(Major::Right)) => {
                    // the last mode repeats fastest
                    let r = target.rank() as u64;
                    Some(
                        IntTuple::from_leaves(&(0..r).rev().collect::<Vec<_>>())
                            .map_err(|e| LayoutError::from_core(name, e))?,
                    )
                }
                Some(v) => Some(want_tuple(name, 2, "an order", v)?),
            };
            Value::Layout(l.tile_to_shape(&target, order.as_ref())?)
        }
        "make_layout" => {
            arity(name, a, 1, 2)?;
            let s = want_shape(name, 0, &a[0])?;
            Value::Layout(match a.get(1) {
                None | Some(Value::Major(Major::Left)) => Layout::col_major(s)?,
                Some(Value::Major(Major::Right)) => Layout::row_major(s)?,
                Some(v) => make_layout(
                    *s.as_tuple(),
                    *Stride::from_tuple(want_tuple(
                        name,
                        1,
                        "a stride or LayoutLeft/LayoutRight",
                        v,
                    )?)?
                    .as_tuple(),
                )?,
            })
        }
        "make_ordered_layout" => {
            arity(name, a, 2, 2)?;
            let s = want_shape(name, 0, &a[0])?;
            Value::Layout(Layout::make_ordered_layout(
                &s,
                &want_tuple(name, 1, "an order", &a[1])?,
            )?)
        }
        "make_layout_like" => {
            arity(name, a, 1, 1)?;
            Value::Layout(want_layout(name, 0, &a[0])?.make_layout_like()?)
        }
        "upcast" | "downcast" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            let n = want_int(name, 1, &a[1])?;
            Value::Layout(if name == "upcast" {
                l.upcast(n)?
            } else {
                l.downcast(n)?
            })
        }
        "recast_layout" => {
            arity(name, a, 3, 3)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(l.recast(want_int(name, 1, &a[1])?, want_int(name, 2, &a[2])?)?)
        }
        "nullspace" => {
            arity(name, a, 1, 1)?;
            Value::Layout(want_layout(name, 0, &a[0])?.nullspace()?)
        }
        "select" => {
            arity(name, a, 2, usize::MAX)?;
            let l = want_layout(name, 0, &a[0])?;
            let modes = match &a[1..] {
                [Value::Tuple(t)] if !t.is_scalar() => t
                    .leaves()
                    .iter()
                    .map(|&v| {
                        usize::try_from(v).map_err(|_| {
                            LayoutError::value(format!("{name}: mode {v} is too large"))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                rest => rest
                    .iter()
                    .enumerate()
                    .map(|(k, v)| want_index(name, k + 1, v))
                    .collect::<Result<Vec<_>, _>>()?,
            };
            Value::Layout(l.select(&modes)?)
        }
        "replace" => {
            arity(name, a, 3, 3)?;
            let l = want_layout(name, 0, &a[0])?;
            Value::Layout(l.replace(want_index(name, 1, &a[1])?, &want_layout(name, 2, &a[2])?)?)
        }
        "slice" | "dice" | "slice_and_offset" => {
            arity(name, a, 2, 2)?;
            let l = want_layout(name, 0, &a[0])?;
            let c = coord(1)?;
            match name {
                "slice" => Value::Layout(l.slice_coord(&c)?),
                "dice" => Value::Layout(l.dice(&c)?),
                _ => {
                    let (s, o) = l.slice_and_offset(&c)?;
                    Value::Pair(Box::new(Value::Layout(s)), Box::new(int(o)))
                }
            }
        }
        "idx2crd" => {
            arity(name, a, 2, 2)?;
            let c = Coord::from_tuple(want_tuple(name, 0, "a coordinate", &a[0])?)?;
            Value::Tuple(*tuples::idx2crd(&c, &want_shape(name, 1, &a[1])?)?.as_tuple())
        }
        "crd2idx" => {
            arity(name, a, 2, 3)?;
            let c = Coord::from_tuple(want_tuple(name, 0, "a coordinate", &a[0])?)?;
            let s = want_shape(name, 1, &a[1])?;
            let d = match a.get(2) {
                Some(v) => Some(Stride::from_tuple(want_tuple(name, 2, "a stride", v)?)?),
                None => None,
            };
            int(tuples::crd2idx(&c, &s, d.as_ref())?)
        }
        "congruent" => {
            let (x, y) = tuple2("an int tuple")?;
            Value::Bool(x.congruent(&y))
        }
        "weakly_congruent" => {
            let (x, y) = tuple2("an int tuple")?;
            Value::Bool(tuples::weakly_congruent(&x, &y))
        }
        "compatible" => {
            let (x, y) = tuple2("a shape")?;
            Value::Bool(tuples::compatible(&x, &y))
        }
        "elem_scale" => {
            let (x, y) = tuple2("an int tuple")?;
            Value::Tuple(tuples::elem_scale(&x, &y)?)
        }
        "evenly_divides" if matches!(a.get(1), Some(Value::Tiler(_))) => {
            arity(name, a, 2, 2)?;
            let x = want_tuple(name, 0, "a shape", &a[0])?;
            let Some(Value::Tiler(ts)) = a.get(1) else {
                return Err(LayoutError::type_error(format!("{name} expects a tiler")));
            };
            Value::Bool(tuples::evenly_divides_tiler(&x, ts)?)
        }
        "evenly_divides" => {
            let (x, y) = tuple2("a shape")?;
            Value::Bool(tuples::evenly_divides(&x, &y)?)
        }
        "shape_div" | "shape_mod" | "ceil_div" => {
            let (x, y) = tuple2("a shape")?;
            Value::Tuple(match name {
                "shape_div" => tuples::shape_div(&x, &y)?,
                "shape_mod" => tuples::shape_mod(&x, &y)?,
                _ => tuples::ceil_div(&x, &y)?,
            })
        }
        "prefix_product" => {
            arity(name, a, 1, 1)?;
            Value::Tuple(tuples::prefix_product(&want_tuple(
                name,
                0,
                "an int tuple",
                &a[0],
            )?)?)
        }
        "inner_product" => {
            let (x, y) = tuple2("an int tuple")?;
            int(tuples::inner_product(&x, &y)?)
        }
        "lex_less" | "colex_less" | "elem_less" => {
            let (x, y) = tuple2("a coordinate")?;
            Value::Bool(match name {
                "lex_less" => tuples::lex_less(&x, &y)?,
                "colex_less" => tuples::colex_less(&x, &y)?,
                _ => tuples::elem_less(&x, &y)?,
            })
        }
        _ => return Err(LayoutError::syntax(format!("unknown function '{name}'"))),
    })
}
