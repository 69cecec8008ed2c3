//! The `layout!` family: CuTe layout notation checked at compile time.
//!
//! These macros are re-exported by `strideweave`; use them from there
//! (`strideweave::layout!`, ...), since their expansions name `::strideweave` paths.
//!
//! | macro | input | expands to |
//! |---|---|---|
//! | [`layout!`] | `SHAPE:STRIDE` or `SHAPE`, integer literal leaves | a static layout value `Static<S, D>` |
//! | [`layout!`] | some leaf a braced Rust expression `{n}` | `Result<Layout, LayoutError>` |
//! | [`layout!`] | an algebra expression of the `eval` language with literal operands, `compose(20:2, (5,4):(4,1))` | the static layout of its result, computed at expansion |
//! | [`layout_type!`] | `SHAPE:STRIDE`, `SHAPE` or an algebra expression, literal leaves | the static layout *type* |
//! | [`shape!`], [`stride!`], [`coord!`] | an integer tree | a static tree value `(C<2>, (C<3>, C<4>))` |
//!
//! A shape alone, `(4,8)`, takes CuTe's default compact column-major strides `(1,4)`.
//!
//! The notation and the algebra are those of `strideweave-core`, the same parser and
//! `const fn` algebra the library runs: the macro reads the tokens into notation text
//! (`parse`), checks every rule and reports each violation at the user's tokens
//! (`validate`), and emits the static layout, the run-time construction or, after errors,
//! a placeholder (`expand`).
//!
//! ```
//! use strideweave::{layout, layout_type, Layout, StaticLayout};
//!
//! // Static: every leaf a literal. Zero-sized, its consts computed by the compiler.
//! let tile = layout!((2,(3,4)):(1,(10,100)));
//! assert_eq!(tile.index_of(23).unwrap(), 321);
//! assert_eq!(layout!((4,8)).to_string(), "(4,8):(1,4)");
//!
//! // Run time: a braced leaf makes a runtime `Layout`; the structure is checked now,
//! // the values when the code runs (an error value, not a panic).
//! let n = 6;
//! let rt: Result<Layout, _> = layout!(({n},4):(1,{n}));
//! assert_eq!(rt.unwrap().to_string(), "(6,4):(1,6)");
//! let zero = 0;
//! assert!(layout!(({zero},4)).is_err());
//!
//! // Algebra with literal operands: computed while the macro expands, by the same core
//! // as `Layout::zipped_divide`; a broken rule is an error in `cargo check`.
//! let z = layout!(zipped_divide((8,8):(8,1), [2:1,4:1]));
//! assert_eq!(z.to_string(), "((2,4),(4,2)):((8,1),(16,4))");
//! type Composed = layout_type!(compose(20:2, (5,4):(4,1)));
//! assert_eq!(Composed::default().to_string(), "(5,4):(8,2)");
//!
//! // Type position: instantiate a generic kernel for a tile.
//! fn cosize_of<T: StaticLayout>() -> u64 { T::COSIZE }
//! assert_eq!(cosize_of::<layout_type!((8,8):(1,8))>(), 64);
//! ```
//!
//! Errors are reported all at once, each at its token, and the macro still expands to a
//! placeholder of the right kind (a static layout with the intended profile, or
//! `Ok(Layout::EMPTY)` for the run-time form), so one mistake does not cascade:
//!
//! ```compile_fail
//! let l = strideweave::layout!((2,0):(1,-2)); // zero extent and negative stride: two errors
//! ```
//!
//! The messages, one per mistake:
//!
//! ```text
//! error: zero extent `0`: every shape extent must be at least 1
//! error: negative stride `-2`: strides must be non-negative integers
//! error: shape `(3,4)` and stride `10` are not congruent: a stride for `(3,4)` has its structure, `(_,_)`
//! error: expected `:` between the shape and the stride, as in `(2,3):(1,2)`
//! error: `x` is not an integer leaf: write an integer literal such as `4`, or `{x}` for a run-time value
//! error: integer `18446744073709551616` does not fit in 64 bits
//! error: empty parentheses `()`: a tuple needs at least one mode, e.g. `(4)` or `(2,3)`
//! error: expected an integer or '(', found ','
//! error: too many leaves: a layout holds at most 32 leaves (strideweave::MAX_LEAVES)
//! error: compose((4,6):(1,5), 6:1): shape divisibility condition fails: remaining extent 6 of B spans past extent 4 of A and is not a multiple of it
//! ```

mod expand;
mod parse;
mod validate;

use expand::Form;
use parse::{Role, Source};
use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens, TokenTree};
use quote::quote;
use validate::Errors;

/// A CuTe layout in notation: a static layout value when every leaf is an integer
/// literal, a `Result<Layout, LayoutError>` when some leaf is a braced Rust expression.
///
/// * `layout!((2,(3,4)):(1,(10,100)))`, `layout!(20:2)`: `strideweave::Static<S, D>`,
///   a zero-sized `Copy` value implementing `StaticLayout`.
/// * `layout!((4,8))`: the shape alone, with CuTe's compact column-major strides.
/// * `layout!(blocked_product((4,8):(8,1), (2,3):(1,2)))`: an algebra expression of the
///   `eval` language (`compose`, `complement`, `divide`, `zipped_divide`, `tiled_divide`,
///   `logical_product`, `blocked_product`, `raked_product`, `coalesce`, `filter`,
///   `right_inverse`, `left_inverse`, `get`, `concat`, `append`, `permute`, ...) whose
///   operands are literal layouts, shapes and tilers. The macro computes it with the
///   library's own algebra and emits the static layout of the result; a broken rule is
///   one compile error at the argument it is about, in the words of the runtime error.
/// * `layout!(({m},4):(1,{m}))`: the structure is checked at compile time, the values
///   at run time; evaluates to `Result<Layout, LayoutError>` (a zero extent, a negative
///   stride or an overflow is an `Err`, never a panic). An expression leaf may have any
///   primitive integer type.
///
/// ```
/// use strideweave::{layout, StaticLayout};
/// let l = layout!((3,4):(2,10));
/// assert_eq!(l.index_of(5).unwrap(), 14);
/// let rows = 3u32;
/// assert_eq!(layout!(({rows},4):(2,10)).unwrap(), l);
/// assert!(layout!((3,4):(2,{-1})).is_err());
/// let p = layout!(blocked_product((4,8):(8,1), (2,3):(1,2)));
/// assert_eq!(p.to_string(), "((4,2),(8,3)):((8,32),(1,64))");
/// ```
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    expand_layout(input.into(), Form::Value).into()
}

/// The type of the static layout `layout!` would build, for generic code:
/// `fn pack<T: StaticLayout>(..)` called as `pack::<layout_type!((8,8):(1,8))>(..)`.
/// Algebra expressions with literal operands work here too:
/// `layout_type!(compose(20:2, (5,4):(4,1)))`.
///
/// ```
/// use strideweave::{layout, layout_type, StaticLayout};
/// type Tile = layout_type!((8,8):(1,8));
/// assert_eq!(Tile::SIZE, 64);
/// let t: Tile = layout!((8,8):(1,8));
/// assert_eq!(t, Tile::default());
/// type Part = layout_type!(compose(20:2, (5,4):(4,1)));
/// assert_eq!(Part::LAYOUT.to_string(), "(5,4):(8,2)");
/// ```
#[proc_macro]
pub fn layout_type(input: TokenStream) -> TokenStream {
    expand_layout(input.into(), Form::Type).into()
}

/// A static shape tree value, e.g. a broadcast target: `shape!((2,(4,3)))` is
/// `(C::<2>, (C::<4>, C::<3>))`. Extents must be at least 1.
///
/// ```
/// use strideweave::{layout, shape};
/// let b = layout!((2,(1,3)):(1,(2,2))).broadcast_to(shape!((2,(4,3))));
/// assert_eq!(b.to_string(), "(2,(4,3)):(1,(0,2))");
/// ```
#[proc_macro]
pub fn shape(input: TokenStream) -> TokenStream {
    expand_tree(input.into(), Role::Shape).into()
}

/// A static stride tree value: `stride!((1,(2,6)))`.
///
/// ```
/// use strideweave::{shape, stride, Static};
/// assert_eq!(Static::from_trees(shape!((2,3)), stride!((3,1))).to_string(), "(2,3):(3,1)");
/// ```
#[proc_macro]
pub fn stride(input: TokenStream) -> TokenStream {
    expand_tree(input.into(), Role::Stride).into()
}

/// A static coordinate value for `StaticLayout::at`: `coord!((1,(2,3)))` or `coord!(23)`.
/// An out-of-domain static coordinate fails the build.
///
/// ```
/// use strideweave::{coord, layout, StaticLayout};
/// assert_eq!(layout!((3,4):(2,10)).at(coord!((2,1))), 14);
/// ```
#[proc_macro]
pub fn coord(input: TokenStream) -> TokenStream {
    expand_tree(input.into(), Role::Coord).into()
}

fn expand_layout(input: Tokens, form: Form) -> Tokens {
    let mut errs = Errors::default();
    if input.is_empty() {
        errs.at_span(
            Span::call_site(),
            "empty layout: write `SHAPE:STRIDE`, e.g. `(2,3):(1,2)`, or a shape alone, e.g. `(4,8)`",
        );
        return expand::placeholder(form, None, &errs, false);
    }
    // `name(...)`: an algebra expression of the `eval` language; `Sw<B,M,S> o L`: a
    // swizzled layout
    let mut toks = input.clone().into_iter();
    let expression = match (toks.next(), toks.next()) {
        (Some(TokenTree::Ident(_)), Some(TokenTree::Group(_))) => true,
        (Some(TokenTree::Ident(id)), Some(TokenTree::Punct(p))) => id == "Sw" && p.as_char() == '<',
        _ => false,
    };
    if expression {
        let src = Source::read(input, Role::Shape, true, &mut errs);
        if !errs.any() {
            match validate::algebra(&src, &mut errs) {
                Some(validate::Computed::Layout(l)) => return expand::computed(&l, form),
                Some(validate::Computed::Swizzled(sw, l)) => {
                    return expand::computed_swizzled(&sw, &l, form)
                }
                None => {}
            }
        }
        return expand::placeholder(form, None, &errs, false);
    }
    let src = Source::read(input, Role::Shape, false, &mut errs);
    let Some(parsed) = validate::layout_input(&src, &mut errs) else {
        return expand::placeholder(form, None, &errs, false);
    };
    let exprs: Vec<_> = parsed
        .shape
        .exprs()
        .into_iter()
        .chain(parsed.stride.iter().flat_map(|s| s.exprs()))
        .collect();
    let runtime = !exprs.is_empty();
    if runtime && form == Form::Type {
        for g in exprs {
            errs.at(
                g,
                "`{...}` leaves are run-time values: `layout_type!` needs integer literal leaves",
            );
        }
    }
    if errs.any() {
        return expand::placeholder(
            form,
            Some(&parsed.shape),
            &errs,
            runtime && form == Form::Value,
        );
    }
    expand::layout(&parsed, form)
}

fn expand_tree(input: Tokens, role: Role) -> Tokens {
    let mut errs = Errors::default();
    let fallback = match role {
        Role::Shape => 1,
        Role::Stride | Role::Coord => 0,
    };
    if input.is_empty() {
        errs.at_span(
            Span::call_site(),
            format!("expected {}, e.g. `(2,(3,4))`", role.tree()),
        );
        let e = errs.to_compile_errors();
        return quote! {{ #e ::strideweave::C::<#fallback> }};
    }
    let src = Source::read(input, role, false, &mut errs);
    let tree = validate::tree_input(&src, role, &mut errs);
    match tree {
        Some(t) if !errs.any() => expand::tree_value(&t, None),
        Some(t) => {
            let e = errs.to_compile_errors();
            let v = expand::tree_value(&t, Some(fallback));
            quote! {{ #e #v }}
        }
        None => {
            let e = errs.to_compile_errors();
            quote! {{ #e ::strideweave::C::<#fallback> }}
        }
    }
}
