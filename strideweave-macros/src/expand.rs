//! Expand: the code a checked input becomes — a static layout type or value, a run-time
//! `Layout` built from `{expression}` leaves, or, after errors, the errors plus a
//! well-typed placeholder so one mistake does not cascade.

use crate::parse::{Leaf, Tree};
use crate::validate::{Errors, LayoutInput};
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{quote, quote_spanned};
use strideweave_core::{IntTuple, Layout, Node};

/// Where the expansion goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// An expression: a layout value.
    Value,
    /// A type: `layout_type!`.
    Type,
}

/// The static tree type (`C<N>` leaves in tuples); `fallback` replaces every leaf.
fn tree_type(t: &Tree, fallback: Option<u64>) -> Tokens {
    match t {
        Tree::Tuple(items, _) => {
            let items = items.iter().map(|i| tree_type(i, fallback));
            quote! { (#(#items,)*) }
        }
        Tree::Leaf(Leaf::Lit(v), _) if fallback.is_none() => quote! { ::strideweave::C<#v> },
        Tree::Leaf(..) => {
            let v = fallback.unwrap_or(1);
            quote! { ::strideweave::C<#v> }
        }
    }
}

/// The static tree value (`C::<N>` unit values in tuples).
pub(crate) fn tree_value(t: &Tree, fallback: Option<u64>) -> Tokens {
    match t {
        Tree::Tuple(items, _) => {
            let items = items.iter().map(|i| tree_value(i, fallback));
            quote! { (#(#items,)*) }
        }
        Tree::Leaf(Leaf::Lit(v), _) if fallback.is_none() => quote! { ::strideweave::C::<#v> },
        Tree::Leaf(..) => {
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
        Tree::Leaf(Leaf::Lit(v), _) => {
            let d = *acc;
            *acc = acc.saturating_mul(*v);
            quote! { ::strideweave::C<#d> }
        }
        Tree::Leaf(..) => quote! { ::strideweave::C<0> },
    }
}

/// The static tree type of a core integer tree (the result of algebra).
fn tuple_type(t: &IntTuple) -> Tokens {
    if t.is_scalar() {
        let v = t.leaf(0);
        return quote! { ::strideweave::C<#v> };
    }
    let mut stack: Vec<Vec<Tokens>> = vec![Vec::new()];
    let mut leaves = t.leaves().iter();
    for node in t.recipe() {
        match node {
            Node::Leaf => {
                let v = leaves.next().copied().unwrap_or(1);
                if let Some(top) = stack.last_mut() {
                    top.push(quote! { ::strideweave::C<#v> });
                }
            }
            Node::Push => stack.push(Vec::new()),
            Node::Pop => {
                let items = stack.pop().unwrap_or_default();
                if let Some(top) = stack.last_mut() {
                    top.push(quote! { (#(#items,)*) });
                }
            }
        }
    }
    let items = stack.pop().unwrap_or_default();
    quote! { (#(#items,)*) }
}

fn static_layout(shape_t: Tokens, stride_t: Tokens, form: Form) -> Tokens {
    let ty = quote! { ::strideweave::Static<#shape_t, #stride_t> };
    match form {
        Form::Type => ty,
        Form::Value => quote! { <#ty>::new() },
    }
}

/// The static layout the algebra computed.
pub(crate) fn computed(l: &Layout, form: Form) -> Tokens {
    static_layout(
        tuple_type(l.shape().as_tuple()),
        tuple_type(l.stride().as_tuple()),
        form,
    )
}

/// The static swizzled layout `Sw<B,M,S> o L` the expression computed: a zero-sized
/// `StaticSwizzled` whose indexing constant-folds.
pub(crate) fn computed_swizzled(sw: &strideweave_core::Swizzle, l: &Layout, form: Form) -> Tokens {
    let (b, m, s) = (sw.bits(), sw.base(), sw.shift());
    let inner = computed(l, Form::Type);
    let ty = quote! {
        ::strideweave::static_layout::StaticSwizzled<
            ::strideweave::static_layout::StaticSwizzle<#b, #m, #s>,
            #inner,
        >
    };
    match form {
        Form::Type => ty,
        Form::Value => quote! { <#ty as ::core::default::Default>::default() },
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
        Tree::Leaf(Leaf::Lit(v), _) => {
            out.push(quote! { #rt::Item::Leaf(::core::result::Result::Ok(#v)) })
        }
        Tree::Leaf(Leaf::Expr(g), _) => {
            let span = g.span();
            let name =
                proc_macro2::Ident::new(&format!("__leaf{}", lets.len()), Span::mixed_site());
            lets.push(quote! {
                #[allow(unused_braces)]
                let #name = #g;
            });
            out.push(quote_spanned! {span=> #rt::leaf(#name) })
        }
        Tree::Leaf(Leaf::Bad, _) => {
            out.push(quote! { #rt::Item::Leaf(::core::result::Result::Ok(1)) })
        }
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

/// A checked `SHAPE[:STRIDE]`: static when every leaf is a literal, else run-time.
pub(crate) fn layout(input: &LayoutInput, form: Form) -> Tokens {
    let LayoutInput { shape, stride } = input;
    let runtime =
        !shape.exprs().is_empty() || stride.as_ref().is_some_and(|s| !s.exprs().is_empty());
    if runtime {
        let rt = quote! { ::strideweave::static_layout::runtime };
        let mut lets = Vec::new();
        let shape_items = top_runtime_items(shape, &mut lets);
        let stride_arg = match stride {
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
    let stride_t = match stride {
        Some(st) => tree_type(st, None),
        None => col_major_type(shape, &mut 1),
    };
    static_layout(tree_type(shape, None), stride_t, form)
}

/// Compile errors plus a well-typed stand-in: a static layout with the intended shape
/// profile (extents 1, strides 0) when the structure parsed, `1:0` otherwise, or
/// `Ok(Layout::EMPTY)` for the run-time form.
pub(crate) fn placeholder(
    form: Form,
    shape: Option<&Tree>,
    errs: &Errors,
    runtime: bool,
) -> Tokens {
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
