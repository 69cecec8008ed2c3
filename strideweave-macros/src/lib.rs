//! The `layout!` family: CuTe layout notation checked at compile time.
//!
//! These macros are re-exported by `strideweave`; use them from there
//! (`strideweave::layout!`, ...), since their expansions name `::strideweave` paths.
//!
//! | macro | input | expands to |
//! |---|---|---|
//! | [`layout!`] | `SHAPE:STRIDE` or `SHAPE`, integer literal leaves | a static layout value `Static<S, D>` |
//! | [`layout!`] | some leaf a braced Rust expression `{n}` | `Result<Layout, LayoutError>` |
//! | [`layout_type!`] | `SHAPE:STRIDE` or `SHAPE`, literal leaves | the static layout *type* |
//! | [`shape!`], [`stride!`], [`coord!`] | an integer tree | a static tree value `(C<2>, (C<3>, C<4>))` |
//!
//! A shape alone, `(4,8)`, takes CuTe's default compact column-major strides `(1,4)`.
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
//! ```

use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Group, Spacing, Span, TokenStream as Tokens, TokenTree};
use quote::{quote, quote_spanned, ToTokens};

/// A CuTe layout in notation: a static layout value when every leaf is an integer
/// literal, a `Result<Layout, LayoutError>` when some leaf is a braced Rust expression.
///
/// * `layout!((2,(3,4)):(1,(10,100)))`, `layout!(20:2)`: `strideweave::Static<S, D>`,
///   a zero-sized `Copy` value implementing `StaticLayout`.
/// * `layout!((4,8))`: the shape alone, with CuTe's compact column-major strides.
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
/// ```
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    expand_layout(input.into(), Form::Value).into()
}

/// The type of the static layout `layout!` would build, for generic code:
/// `fn pack<T: StaticLayout>(..)` called as `pack::<layout_type!((8,8):(1,8))>(..)`.
///
/// ```
/// use strideweave::{layout, layout_type, StaticLayout};
/// type Tile = layout_type!((8,8):(1,8));
/// assert_eq!(Tile::SIZE, 64);
/// let t: Tile = layout!((8,8):(1,8));
/// assert_eq!(t, Tile::default());
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Shape,
    Stride,
    Coord,
}

impl Role {
    fn noun(self) -> &'static str {
        match self {
            Role::Shape => "extent",
            Role::Stride => "stride",
            Role::Coord => "coordinate",
        }
    }
    fn plural(self) -> &'static str {
        match self {
            Role::Shape => "extents",
            Role::Stride => "strides",
            Role::Coord => "coordinates",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Value,
    Type,
}

/// A parsed tree, every node remembering its tokens for error spans.
enum Tree {
    /// An integer literal leaf.
    Lit(u64, Tokens),
    /// A `{expression}` leaf (run-time value).
    Expr(Group),
    /// A leaf already reported as an error.
    Bad(Tokens),
    /// A parenthesised tuple.
    Tuple(Vec<Tree>, Group),
}

impl Tree {
    fn tokens(&self) -> Tokens {
        match self {
            Tree::Lit(_, t) | Tree::Bad(t) => t.clone(),
            Tree::Expr(g) | Tree::Tuple(_, g) => g.to_token_stream(),
        }
    }

    /// The tree in the user's notation.
    fn notation(&self) -> String {
        match self {
            Tree::Lit(v, _) => v.to_string(),
            Tree::Expr(g) => format!("{{{}}}", g.stream()),
            Tree::Bad(t) => t.to_string().replace(' ', ""),
            Tree::Tuple(items, _) => {
                let inner: Vec<String> = items.iter().map(Tree::notation).collect();
                format!("({})", inner.join(","))
            }
        }
    }

    /// The structure as a template: `(_,(_,_))`.
    fn template(&self) -> String {
        match self {
            Tree::Tuple(items, _) => {
                let inner: Vec<String> = items.iter().map(Tree::template).collect();
                format!("({})", inner.join(","))
            }
            _ => "_".to_string(),
        }
    }

    fn has_expr(&self) -> bool {
        match self {
            Tree::Expr(_) => true,
            Tree::Tuple(items, _) => items.iter().any(Tree::has_expr),
            _ => false,
        }
    }

    /// The `{expression}` leaves, depth-first.
    fn exprs(&self, out: &mut Vec<Group>) {
        match self {
            Tree::Expr(g) => out.push(g.clone()),
            Tree::Tuple(items, _) => items.iter().for_each(|t| t.exprs(out)),
            _ => {}
        }
    }

    /// Literal leaves in depth-first order (`None` for any non-literal leaf).
    fn literal_leaves(&self, out: &mut Vec<Option<u64>>) {
        match self {
            Tree::Lit(v, _) => out.push(Some(*v)),
            Tree::Expr(_) | Tree::Bad(_) => out.push(None),
            Tree::Tuple(items, _) => items.iter().for_each(|t| t.literal_leaves(out)),
        }
    }

    fn node_count(&self) -> usize {
        match self {
            Tree::Tuple(items, _) => 2 + items.iter().map(Tree::node_count).sum::<usize>(),
            _ => 1,
        }
    }
}

/// Collects every error of one invocation.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    fn at(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }
    fn at_span(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }
    fn any(&self) -> bool {
        self.0.is_some()
    }
    fn to_compile_errors(&self) -> Tokens {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}

struct Parser {
    toks: Vec<TokenTree>,
    pos: usize,
}

impl Parser {
    fn new(ts: Tokens) -> Self {
        Parser {
            toks: ts.into_iter().collect(),
            pos: 0,
        }
    }
    fn peek(&self) -> Option<&TokenTree> {
        self.toks.get(self.pos)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(TokenTree::Punct(p)) if p.as_char() == c)
    }

    /// One tree. Errors are recorded and the offending leaf becomes `Tree::Bad`.
    fn tree(&mut self, role: Role, errs: &mut Errors) -> Tree {
        let Some(tok) = self.peek().cloned() else {
            let span = self.toks.last().map_or(Span::call_site(), TokenTree::span);
            errs.at_span(
                span,
                format!(
                    "expected {} here: an integer, `(...)` or `{{expression}}`",
                    role_tree(role)
                ),
            );
            return Tree::Bad(Tokens::new());
        };
        self.pos += 1;
        match tok {
            TokenTree::Literal(lit) => literal_leaf(lit, role, errs),
            TokenTree::Punct(p) if p.as_char() == '-' => {
                let mut tokens = p.to_token_stream();
                let mut text = "-".to_string();
                if let Some(next @ TokenTree::Literal(_)) = self.peek().cloned() {
                    self.pos += 1;
                    text.push_str(&next.to_string());
                    next.to_tokens(&mut tokens);
                }
                errs.at(
                    &tokens,
                    format!(
                        "negative {} `{text}`: {} must be non-negative integers",
                        role.noun(),
                        role.plural()
                    ),
                );
                Tree::Bad(tokens)
            }
            TokenTree::Group(g) => match g.delimiter() {
                Delimiter::Parenthesis => self.tuple(g, role, errs),
                Delimiter::Brace => Tree::Expr(g),
                Delimiter::None => {
                    // an interpolated macro_rules fragment: parse what is inside
                    let mut inner = Parser::new(g.stream());
                    let t = inner.tree(role, errs);
                    if !inner.at_end() {
                        errs.at(&g, "expected one tree");
                    }
                    t
                }
                Delimiter::Bracket => {
                    errs.at(
                        &g,
                        format!(
                            "`[...]` is not {}: use parentheses, e.g. `(2,3)`",
                            role_tree(role)
                        ),
                    );
                    Tree::Bad(g.to_token_stream())
                }
            },
            TokenTree::Ident(id) => {
                errs.at(
                    &id,
                    format!("`{id}` is not an integer leaf: write an integer literal such as `4`, or `{{{id}}}` for a run-time value"),
                );
                Tree::Bad(id.to_token_stream())
            }
            TokenTree::Punct(p) => {
                errs.at(
                    &p,
                    format!(
                        "expected {} here, found `{}`: an integer, `(...)` or `{{expression}}`",
                        role_tree(role),
                        p.as_char()
                    ),
                );
                Tree::Bad(p.to_token_stream())
            }
        }
    }

    fn tuple(&mut self, g: Group, role: Role, errs: &mut Errors) -> Tree {
        let mut inner = Parser::new(g.stream());
        if inner.at_end() {
            errs.at(
                &g,
                "empty parentheses `()`: a tuple needs at least one mode, e.g. `(4)` or `(2,3)`",
            );
            return Tree::Bad(g.to_token_stream());
        }
        let mut items = Vec::new();
        loop {
            if inner.is_punct(',') {
                let comma = inner.peek().cloned();
                errs.at(&comma, format!("expected {} before `,`", role_tree(role)));
                inner.pos += 1;
                continue;
            }
            items.push(inner.tree(role, errs));
            if inner.at_end() {
                break;
            }
            if inner.is_punct(',') {
                let comma = inner.peek().cloned();
                inner.pos += 1;
                if inner.at_end() {
                    errs.at(&comma, "trailing `,`: remove it, or add a mode after it");
                    break;
                }
            } else {
                let t = inner.peek().cloned();
                errs.at(&t, "expected `,` between modes, as in `(2,3)`");
            }
        }
        Tree::Tuple(items, g)
    }
}

fn role_tree(role: Role) -> &'static str {
    match role {
        Role::Shape => "a shape",
        Role::Stride => "a stride",
        Role::Coord => "a coordinate",
    }
}

fn literal_leaf(lit: proc_macro2::Literal, role: Role, errs: &mut Errors) -> Tree {
    let tokens = lit.to_token_stream();
    let text = lit.to_string();
    match syn::parse2::<syn::Lit>(tokens.clone()) {
        Ok(syn::Lit::Int(i)) => match i.base10_parse::<u64>() {
            Ok(0) if role == Role::Shape => {
                errs.at(
                    &tokens,
                    "zero extent `0`: every shape extent must be at least 1",
                );
                Tree::Bad(tokens)
            }
            Ok(v) => Tree::Lit(v, tokens),
            Err(_) => {
                errs.at(
                    &tokens,
                    format!("integer `{text}` does not fit in 64 bits: {} are at most 18446744073709551615", role.plural()),
                );
                Tree::Bad(tokens)
            }
        },
        _ => {
            errs.at(
                &tokens,
                format!(
                    "`{text}` is not an integer leaf: {} are non-negative integers such as `4`",
                    role.plural()
                ),
            );
            Tree::Bad(tokens)
        }
    }
}

/// Reports the first depth-first sub-tree where shape and stride differ in structure.
fn check_congruent(shape: &Tree, stride: &Tree, errs: &mut Errors) -> bool {
    match (shape, stride) {
        (Tree::Tuple(a, _), Tree::Tuple(b, _)) if a.len() == b.len() => {
            a.iter().zip(b).all(|(x, y)| check_congruent(x, y, errs))
        }
        (Tree::Tuple(..), _) | (_, Tree::Tuple(..)) => {
            errs.at(
                stride.tokens(),
                format!(
                    "shape `{}` and stride `{}` are not congruent: a stride for `{}` has its structure, `{}`",
                    shape.notation(),
                    stride.notation(),
                    shape.notation(),
                    shape.template()
                ),
            );
            false
        }
        _ => true,
    }
}

/// Size and cosize must fit in 64 bits, as `Layout::from_trees` requires.
fn check_overflow(shape: &Tree, stride: Option<&Tree>, errs: &mut Errors) -> bool {
    let mut ext = Vec::new();
    shape.literal_leaves(&mut ext);
    if ext.len() > 32 {
        errs.at(
            shape.tokens(),
            format!(
                "too many leaves: a layout holds at most 32, this shape has {}",
                ext.len()
            ),
        );
        return false;
    }
    if shape.node_count() > 96 + 2 {
        errs.at(
            shape.tokens(),
            "too deeply nested: a layout holds at most 96 tree nodes",
        );
        return false;
    }
    let Some(ext) = ext.into_iter().collect::<Option<Vec<u64>>>() else {
        return true; // run-time leaves are checked at run time
    };
    let overflow = |errs: &mut Errors, what: &str, t: &Tree| {
        errs.at(
            t.tokens(),
            format!("integer overflow: the {what} of this layout does not fit in 64 bits; use smaller extents or strides"),
        );
        false
    };
    let size = ext.iter().try_fold(1u64, |a, &e| a.checked_mul(e));
    if size.is_none() {
        return overflow(errs, "size", shape);
    }
    if let Some(stride) = stride {
        let mut st = Vec::new();
        stride.literal_leaves(&mut st);
        let Some(st) = st.into_iter().collect::<Option<Vec<u64>>>() else {
            return true;
        };
        let cosize = ext
            .iter()
            .zip(&st)
            .try_fold(0u64, |acc, (&e, &d)| {
                (e - 1).checked_mul(d)?.checked_add(acc)
            })
            .and_then(|m| m.checked_add(1));
        if cosize.is_none() {
            return overflow(errs, "cosize", stride);
        }
    }
    true
}

/// The static tree type, with `1`/`0` placeholders where `fallback` is set.
fn tree_type(t: &Tree, fallback: Option<u64>) -> Tokens {
    match t {
        Tree::Tuple(items, _) => {
            let items = items.iter().map(|i| tree_type(i, fallback));
            quote! { (#(#items,)*) }
        }
        Tree::Lit(v, _) if fallback.is_none() => quote! { ::strideweave::C<#v> },
        _ => {
            let v = fallback.unwrap_or(1);
            quote! { ::strideweave::C<#v> }
        }
    }
}

/// The static tree value (`C::<N>` unit values in tuples).
fn tree_value(t: &Tree, fallback: Option<u64>) -> Tokens {
    match t {
        Tree::Tuple(items, _) => {
            let items = items.iter().map(|i| tree_value(i, fallback));
            quote! { (#(#items,)*) }
        }
        Tree::Lit(v, _) if fallback.is_none() => quote! { ::strideweave::C::<#v> },
        _ => {
            let v = fallback.unwrap_or(1);
            quote! { ::strideweave::C::<#v> }
        }
    }
}

/// CuTe's compact column-major strides for a literal shape.
fn col_major_type(shape: &Tree, acc: &mut u64) -> Tokens {
    match shape {
        Tree::Tuple(items, _) => {
            let items = items.iter().map(|i| col_major_type(i, acc));
            quote! { (#(#items,)*) }
        }
        Tree::Lit(v, _) => {
            let d = *acc;
            *acc = acc.saturating_mul(*v);
            quote! { ::strideweave::C<#d> }
        }
        _ => quote! { ::strideweave::C<0> },
    }
}

/// The run-time recipe items of a tree; each `{expression}` is bound first, in order,
/// by a statement pushed to `lets`.
fn runtime_items(t: &Tree, out: &mut Vec<Tokens>, lets: &mut Vec<Tokens>) {
    let rt = quote! { ::strideweave::static_layout::runtime };
    match t {
        Tree::Tuple(items, _) => {
            out.push(quote! { #rt::Item::Push });
            items.iter().for_each(|i| runtime_items(i, out, lets));
            out.push(quote! { #rt::Item::Pop });
        }
        Tree::Lit(v, _) => out.push(quote! { #rt::Item::Leaf(::core::result::Result::Ok(#v)) }),
        Tree::Expr(g) => {
            let span = g.span();
            let name =
                proc_macro2::Ident::new(&format!("__leaf{}", lets.len()), Span::mixed_site());
            lets.push(quote! {
                #[allow(unused_braces)]
                let #name = #g;
            });
            out.push(quote_spanned! {span=> #rt::leaf(#name) })
        }
        Tree::Bad(_) => out.push(quote! { #rt::Item::Leaf(::core::result::Result::Ok(1)) }),
    }
}

/// Top-level items of the outermost tree (its parentheses are implicit in a recipe).
fn top_runtime_items(t: &Tree, lets: &mut Vec<Tokens>) -> Vec<Tokens> {
    let mut out = Vec::new();
    match t {
        Tree::Tuple(items, _) => items.iter().for_each(|i| runtime_items(i, &mut out, lets)),
        other => runtime_items(other, &mut out, lets),
    }
    out
}

fn expand_layout(input: Tokens, form: Form) -> Tokens {
    let mut errs = Errors::default();
    let mut p = Parser::new(input);
    if p.at_end() {
        errs.at_span(
            Span::call_site(),
            "empty layout: write `SHAPE:STRIDE`, e.g. `(2,3):(1,2)`, or a shape alone, e.g. `(4,8)`",
        );
        return placeholder(form, None, &errs, false);
    }
    let shape = p.tree(Role::Shape, &mut errs);
    let mut stride = None;
    if !p.at_end() {
        if p.is_punct(':') {
            let colon = p.peek().cloned();
            p.pos += 1;
            if let Some(TokenTree::Punct(c)) = &colon {
                if c.spacing() == Spacing::Joint && p.is_punct(':') {
                    errs.at(
                        &colon,
                        "`::` is not the layout separator: write one `:` between shape and stride",
                    );
                    p.pos += 1;
                }
            }
            if p.at_end() {
                errs.at(&colon, "expected a stride after `:`, e.g. `(2,3):(1,2)`");
            } else {
                stride = Some(p.tree(Role::Stride, &mut errs));
            }
        } else {
            let t = p.peek().cloned();
            errs.at(
                &t,
                "expected `:` between the shape and the stride, as in `(2,3):(1,2)`",
            );
            stride = Some(p.tree(Role::Stride, &mut errs));
        }
        if !p.at_end() {
            let rest: Tokens = p.toks[p.pos..].iter().cloned().collect();
            errs.at(
                rest,
                "unexpected tokens after the stride: a layout is `SHAPE:STRIDE`",
            );
        }
    }
    let runtime = shape.has_expr() || stride.as_ref().is_some_and(Tree::has_expr);
    if runtime && form == Form::Type {
        let mut exprs = Vec::new();
        shape.exprs(&mut exprs);
        if let Some(st) = &stride {
            st.exprs(&mut exprs);
        }
        for g in exprs {
            errs.at(
                g,
                "`{...}` leaves are run-time values: `layout_type!` needs integer literal leaves",
            );
        }
    }
    if let Some(st) = &stride {
        if check_congruent(&shape, st, &mut errs) {
            check_overflow(&shape, Some(st), &mut errs);
        }
    } else {
        check_overflow(&shape, None, &mut errs);
    }
    if errs.any() {
        return placeholder(form, Some(&shape), &errs, runtime && form == Form::Value);
    }
    if runtime {
        let rt = quote! { ::strideweave::static_layout::runtime };
        let mut lets = Vec::new();
        let shape_items = top_runtime_items(&shape, &mut lets);
        let stride_arg = match &stride {
            Some(st) => {
                let items = top_runtime_items(st, &mut lets);
                quote! { ::core::option::Option::Some(&[#(#items),*]) }
            }
            None => quote! { ::core::option::Option::None },
        };
        return quote! {{
            #(#lets)*
            #rt::layout_from_items(&[#(#shape_items),*], #stride_arg)
        }};
    }
    let shape_t = tree_type(&shape, None);
    let stride_t = match &stride {
        Some(st) => tree_type(st, None),
        None => col_major_type(&shape, &mut 1),
    };
    let ty = quote! { ::strideweave::Static<#shape_t, #stride_t> };
    match form {
        Form::Type => ty,
        Form::Value => quote! { <#ty>::new() },
    }
}

/// Compile errors plus a well-typed stand-in: a static layout with the intended shape
/// profile (extents 1, strides 0), or `Ok(Layout::EMPTY)` for the run-time form.
fn placeholder(form: Form, shape: Option<&Tree>, errs: &Errors, runtime: bool) -> Tokens {
    let errors = errs.to_compile_errors();
    let (shape_t, stride_t) = match shape {
        Some(s) => (tree_type(s, Some(1)), tree_type(s, Some(0))),
        None => (
            quote! { ::strideweave::C<1> },
            quote! { ::strideweave::C<0> },
        ),
    };
    let ty = quote! { ::strideweave::Static<#shape_t, #stride_t> };
    match form {
        Form::Type => quote! {
            <#ty as ::strideweave::static_layout::Same<[(); { #errors 0 }]>>::Type
        },
        Form::Value if runtime => quote! {{
            #errors
            ::core::result::Result::<::strideweave::Layout, ::strideweave::LayoutError>::Ok(
                ::strideweave::Layout::EMPTY,
            )
        }},
        Form::Value => quote! {{ #errors <#ty>::new() }},
    }
}

fn expand_tree(input: Tokens, role: Role) -> Tokens {
    let mut errs = Errors::default();
    let mut p = Parser::new(input);
    if p.at_end() {
        errs.at_span(
            Span::call_site(),
            format!("expected {}, e.g. `(2,(3,4))`", role_tree(role)),
        );
        let e = errs.to_compile_errors();
        return quote! {{ #e ::strideweave::C::<1> }};
    }
    let t = p.tree(role, &mut errs);
    if !p.at_end() {
        let rest: Tokens = p.toks[p.pos..].iter().cloned().collect();
        errs.at(rest, format!("unexpected tokens after {}", role_tree(role)));
    }
    let mut exprs = Vec::new();
    t.exprs(&mut exprs);
    for g in exprs {
        errs.at(
            g,
            "`{...}` leaves are run-time values: a static tree needs integer literal leaves",
        );
    }
    let fallback = match role {
        Role::Shape => 1,
        Role::Stride | Role::Coord => 0,
    };
    if errs.any() {
        let e = errs.to_compile_errors();
        let v = tree_value(&t, Some(fallback));
        return quote! {{ #e #v }};
    }
    tree_value(&t, None)
}
