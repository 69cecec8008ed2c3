//! The `eval` language's swizzles, swizzled layouts and coordinate layouts: their
//! literals, and the functions that take them. Operations that CuTe defines on a
//! `ComposedLayout` as "the same operation on its layout, swizzle kept" run the ordinary
//! `eval` function on the layout and wrap the result; coordinate layouts run the ordinary
//! function through [`CoordLayout`]'s integer encoding. No second copy of any function.

use crate::composed::renamed;
use crate::coord_layout::{basis_stride_tree, from_parts};
use crate::error::LayoutError;
use crate::eval::Value;
use crate::int_tuple::{Coord, IntTuple, Shape};
use crate::notation::{make_layout, swizzle_params, Parser};
use crate::{ComposedLayout, CoordLayout, Layout, Swizzle};

/// The functions this module adds to `eval`.
pub(crate) const FUNCTIONS: &[&str] = &[
    "make_identity_layout",
    "make_swizzle",
    "get_swizzle_portion",
    "get_nonswizzle_portion",
    "upcast",
    "downcast",
];

/// Functions that act on a swizzled layout's layout and keep the swizzle (CuTe's
/// `composition(a.layout_a(), a.offset(), op(a.layout_b(), ...))`).
const REWRAP: &[&str] = &[
    "compose",
    "divide",
    "logical_divide",
    "divide_tiler",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "blocked_product",
    "raked_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "tile_to_shape",
    "coalesce",
    "filter",
    "get",
    "flatten",
    "group",
];

/// Queries answered by the layout alone (CuTe: `size(a.layout_b())` and so on;
/// `complement` of a composed layout is the complement of its layout, a plain layout;
/// adding an offset and swizzling are bijections, so injectivity is the layout's).
const INNER_QUERY: &[&str] = &[
    "complement",
    "is_injective",
    "size",
    "cosize",
    "rank",
    "depth",
    "shape",
    "profile",
    "can_compose",
];

/// Functions a coordinate layout supports: those that only scale its strides by integers.
const COORD_OPS: &[&str] = &[
    "compose",
    "divide",
    "logical_divide",
    "divide_tiler",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "coalesce",
    "get",
    "flatten",
    "group",
];

/// After `SHAPE:` in an expression: an integer stride tree (a layout) or one with
/// scaled-basis leaves `k@i` (a coordinate layout).
pub(crate) fn layout_literal(p: &mut Parser, shape: IntTuple) -> Result<Value, LayoutError> {
    let (scales, dirs, any_basis) = basis_stride_tree(p)?;
    if any_basis {
        Ok(Value::CoordLayout(from_parts(shape, scales, &dirs)?))
    } else {
        Ok(Value::Layout(make_layout(shape, scales)?))
    }
}

/// After the word `Sw`: `<B,M,S>`, then optionally `o [OFFSET o] LAYOUT`.
pub(crate) fn swizzle_literal(
    p: &mut Parser,
    start: usize,
    expr: fn(&mut Parser) -> Result<Value, LayoutError>,
) -> Result<Value, LayoutError> {
    let sw = swizzle_params(p, start)?;
    if !p.eat_word("o") {
        return Ok(Value::Swizzle(sw));
    }
    let mut offset = 0;
    let mut at = p.pos();
    let mut inner = offset_or_expr(p, expr)?;
    if let Value::Tuple(t) = &inner {
        if t.is_scalar() && p.eat_word("o") {
            offset = t.leaf(0);
            at = p.pos();
            inner = expr(p)?;
        }
    }
    match inner {
        Value::Layout(l) => Ok(composed(ComposedLayout::new(sw, offset, l)?)),
        other => Err(LayoutError::type_error(format!(
            "'{sw} o' expects a layout at column {}, found {} {other}",
            at + 1,
            other.kind()
        ))),
    }
}

/// An expression, or CuTe's `_N` spelling of a static offset.
fn offset_or_expr(
    p: &mut Parser,
    expr: fn(&mut Parser) -> Result<Value, LayoutError>,
) -> Result<Value, LayoutError> {
    if p.peek() == Some('_') {
        if let Some(v) = crate::notation::cute_integer(p)? {
            return Ok(Value::Tuple(IntTuple::scalar(v)));
        }
    }
    expr(p)
}

/// A swizzled layout as a value: CuTe returns the layout itself when the swizzle is the
/// identity and the offset 0.
fn composed(c: ComposedLayout) -> Value {
    if c.is_plain() {
        Value::Layout(c.layout())
    } else {
        Value::Composed(c)
    }
}

fn is_new_kind(v: &Value) -> bool {
    matches!(
        v,
        Value::Swizzle(_) | Value::Composed(_) | Value::CoordLayout(_)
    )
}

fn arity(name: &str, args: &[Value], n: usize) -> Result<(), LayoutError> {
    if args.len() != n {
        return Err(LayoutError::type_error(format!(
            "{name} takes {n} argument{}, got {}",
            if n == 1 { "" } else { "s" },
            args.len()
        )));
    }
    Ok(())
}

fn int(v: u64) -> Value {
    Value::Tuple(IntTuple::scalar(v))
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

fn want_coord(name: &str, v: &Value) -> Result<Coord, LayoutError> {
    match v {
        Value::Tuple(t) => Coord::from_tuple(*t),
        other => Err(LayoutError::type_error(format!(
            "{name} expects a coordinate as argument 2, found {} {other}",
            other.kind()
        ))),
    }
}

/// The value of `name(args)` when it involves this module's kinds or functions, or
/// `None` to let the ordinary `eval` function handle it.
pub(crate) fn call(name: &str, args: &[Value]) -> Result<Option<Value>, LayoutError> {
    match name {
        "make_identity_layout" => {
            arity(name, args, 1)?;
            let shape = match &args[0] {
                Value::Tuple(t) => Shape::from_tuple(*t)?,
                Value::Layout(l) => l.shape(),
                other => {
                    return Err(LayoutError::type_error(format!(
                        "make_identity_layout expects a shape, found {} {other}",
                        other.kind()
                    )))
                }
            };
            return Ok(Some(Value::CoordLayout(CoordLayout::identity(&shape)?)));
        }
        "make_swizzle" => {
            arity(name, args, 2)?;
            let (y, z) = (want_int(name, 0, &args[0])?, want_int(name, 1, &args[1])?);
            let sw = Swizzle::from_masks(y, z).ok_or_else(|| {
                LayoutError::value(format!(
                    "make_swizzle({y}, {z}): the masks {y:#b} and {z:#b} are not those of one swizzle (equal bit counts, each one run of bits, apart)"
                ))
            })?;
            return Ok(Some(Value::Swizzle(sw)));
        }
        "get_swizzle_portion" | "get_nonswizzle_portion" => {
            arity(name, args, 1)?;
            let swizzle = name == "get_swizzle_portion";
            return Ok(Some(match &args[0] {
                Value::Composed(c) if swizzle => Value::Swizzle(c.swizzle_portion()),
                Value::Composed(c) => Value::Layout(c.nonswizzle_portion()),
                Value::Layout(_) if swizzle => Value::Swizzle(Swizzle::IDENTITY),
                Value::Layout(l) => Value::Layout(*l),
                other => {
                    return Err(LayoutError::type_error(format!(
                        "{name} expects a layout or a swizzled layout, found {} {other}",
                        other.kind()
                    )))
                }
            }));
        }
        _ => {}
    }
    if !args.iter().any(is_new_kind) {
        return Ok(None);
    }
    let result = match &args[0] {
        Value::Composed(c) => composed_call(name, c, args)?,
        Value::CoordLayout(c) => coord_call(name, c, args)?,
        Value::Swizzle(sw) => swizzle_call(name, sw, args)?,
        Value::Layout(a) if name == "compose" && args.len() == 2 => match &args[1] {
            Value::Swizzle(sw) => composed(a.compose_swizzle(sw)?),
            Value::Composed(b) => composed(a.compose_composed(b)?),
            Value::CoordLayout(b) => Value::Layout(a.compose_coord(b)?),
            _ => return Err(unsupported(name, &args[1])),
        },
        // whether `compose` succeeds: the same dispatch, any value error is `false`
        Value::Layout(_) if name == "can_compose" && args.len() == 2 => {
            match call("compose", args) {
                Ok(_) => Value::Bool(true),
                Err(e) if e.kind() == crate::ErrorKind::Value => Value::Bool(false),
                Err(e) => return Err(e),
            }
        }
        _ => {
            let bad = args.iter().find(|v| is_new_kind(v)).unwrap_or(&args[0]);
            return Err(unsupported(name, bad));
        }
    };
    Ok(Some(result))
}

fn unsupported(name: &str, v: &Value) -> LayoutError {
    LayoutError::type_error(format!("{name} does not take {} ({v})", v.kind()))
}

/// `args` with the first argument replaced by `first`.
fn with_first(first: Value, args: &[Value]) -> Vec<Value> {
    let mut a = args.to_vec();
    a[0] = first;
    a
}

fn composed_call(name: &str, c: &ComposedLayout, args: &[Value]) -> Result<Value, LayoutError> {
    // the ordinary function on L; its errors name the swizzled layout, not L alone
    let on = |l: &Layout| crate::eval::call(name, with_first(Value::Layout(*l), args));
    let inner = || on(&c.layout()).map_err(|e| renamed(e, &c.layout(), c));
    Ok(match name {
        "index" => {
            arity(name, args, 2)?;
            int(c.index(&want_coord(name, &args[1])?)?)
        }
        "right_inverse" | "left_inverse" => {
            arity(name, args, 1)?;
            composed(if name == "right_inverse" {
                c.right_inverse()?
            } else {
                c.left_inverse()?
            })
        }
        "upcast" | "downcast" => {
            // CuTe: upcast<N>(Sw o O o L) = upcast<N>(Sw) o O/N o upcast<N>(L)
            arity(name, args, 2)?;
            let n = want_int(name, 1, &args[1])?;
            let up = name == "upcast";
            let sw = if up {
                c.swizzle().upcast(n)?
            } else {
                c.swizzle().downcast(n)?
            };
            let offset = match (up, n) {
                (_, 0) => None,
                (true, n) => c.offset().is_multiple_of(n).then(|| c.offset() / n),
                (false, n) => c.offset().checked_mul(n),
            }
            .ok_or_else(|| {
                LayoutError::value(format!(
                    "{name}({c}, {n}): the offset {} does not scale by {n} exactly",
                    c.offset()
                ))
            })?;
            match on(&c.layout()).map_err(|e| renamed(e, &c.layout(), c))? {
                Value::Layout(l) => composed(ComposedLayout::new(sw, offset, l)?),
                other => return Err(unsupported(name, &other)),
            }
        }
        "slice" if args.len() == 2 => {
            let cut = match &args[1] {
                Value::Slice(s) => *s,
                Value::Tuple(t) => crate::SliceCoord::from_tuple(*t),
                other => return Err(unsupported(name, other)),
            };
            composed(c.slice_coord(&cut)?)
        }
        "compose"
            if args.len() == 2 && matches!(args[1], Value::Swizzle(_) | Value::Composed(_)) =>
        {
            composed(match &args[1] {
                Value::Swizzle(sw) => c.compose_swizzle(sw)?,
                Value::Composed(b) => c.compose_composed(b)?,
                other => return Err(unsupported(name, other)),
            })
        }
        n if INNER_QUERY.contains(&n) => inner()?,
        n if REWRAP.contains(&n) => composed(c.map_layout(|l| match on(l)? {
            Value::Layout(r) => Ok(r),
            other => Err(LayoutError::type_error(format!(
                "{name} gave {} for a swizzled layout",
                other.kind()
            ))),
        })?),
        _ => return Err(unsupported(name, &args[0])),
    })
}

fn coord_call(name: &str, c: &CoordLayout, args: &[Value]) -> Result<Value, LayoutError> {
    Ok(match name {
        "index" => {
            arity(name, args, 2)?;
            Value::Tuple(*c.index(&want_coord(name, &args[1])?)?.as_tuple())
        }
        "size" | "rank" | "depth" | "shape" | "profile" => {
            // the domain's properties; a coordinate layout has no integer cosize
            let shape_only = Layout::col_major(c.shape())?;
            crate::eval::call(name, with_first(Value::Layout(shape_only), args))?
        }
        n if COORD_OPS.contains(&n) => {
            let what = || format!("{name}({c}, ...)");
            Value::CoordLayout(c.map_integer(&what, &|enc| match crate::eval::call(
                name,
                with_first(Value::Layout(*enc), args),
            )? {
                Value::Layout(l) => Ok(l),
                other => Err(LayoutError::type_error(format!(
                    "{name} gave {} for a coordinate layout",
                    other.kind()
                ))),
            })?)
        }
        _ => return Err(unsupported(name, &args[0])),
    })
}

fn swizzle_call(name: &str, sw: &Swizzle, args: &[Value]) -> Result<Value, LayoutError> {
    Ok(match (name, args.get(1)) {
        ("index", Some(v)) => {
            arity(name, args, 2)?;
            int(sw.apply(want_int(name, 1, v)?))
        }
        ("right_inverse" | "left_inverse", None) => Value::Swizzle(*sw),
        ("upcast", Some(v)) if args.len() == 2 => Value::Swizzle(sw.upcast(want_int(name, 1, v)?)?),
        ("downcast", Some(v)) if args.len() == 2 => {
            Value::Swizzle(sw.downcast(want_int(name, 1, v)?)?)
        }
        ("compose", Some(Value::Layout(l))) if args.len() == 2 => composed(sw.compose(l)),
        ("compose", Some(Value::Swizzle(b))) if args.len() == 2 => {
            Value::Swizzle(sw.compose_swizzle(b)?)
        }
        ("compose", Some(Value::Composed(b))) if args.len() == 2 => composed(ComposedLayout::new(
            sw.compose_swizzle(&b.swizzle())?,
            b.offset(),
            b.layout(),
        )?),
        _ => return Err(unsupported(name, &args[0])),
    })
}
