//! Validate: every rule a layout or an algebra expression must satisfy, each violation
//! one error at the user's tokens, all collected before anything is expanded.

use crate::parse::{int_tree, Leaf, Role, Source, Tree};
use proc_macro2::{Delimiter, Span, TokenStream as Tokens};
use quote::ToTokens;
use strideweave_core::eval::{eval, Value};
use strideweave_core::notation::Parser;
use strideweave_core::{CoreError, Layout, MAX_LEAVES, MAX_NODES};

/// Every error of one invocation, reported together.
#[derive(Default)]
pub(crate) struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    pub(crate) fn at(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }
    pub(crate) fn at_span(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }
    pub(crate) fn any(&self) -> bool {
        self.0.is_some()
    }
    pub(crate) fn to_compile_errors(&self) -> Tokens {
        self.0
            .as_ref()
            .map(syn::Error::to_compile_error)
            .unwrap_or_default()
    }
}

impl Tree {
    pub(crate) fn tokens(&self) -> Tokens {
        match self {
            Tree::Leaf(_, t) => t.clone(),
            Tree::Tuple(_, g) => g.to_token_stream(),
        }
    }

    /// The tree in the user's notation.
    pub(crate) fn notation(&self) -> String {
        match self {
            Tree::Leaf(Leaf::Lit(v), _) => v.to_string(),
            Tree::Leaf(Leaf::Expr(g), _) => format!("{{{}}}", g.stream()),
            Tree::Leaf(Leaf::Bad, t) => t.to_string().replace(' ', ""),
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
            Tree::Leaf(..) => "_".to_string(),
        }
    }

    /// Leaves in depth-first order.
    pub(crate) fn leaves(&self) -> Vec<&Leaf> {
        match self {
            Tree::Leaf(l, _) => vec![l],
            Tree::Tuple(items, _) => items.iter().flat_map(Tree::leaves).collect(),
        }
    }

    /// The `{expression}` leaves, depth-first.
    pub(crate) fn exprs(&self) -> Vec<proc_macro2::Group> {
        self.leaves()
            .into_iter()
            .filter_map(|l| match l {
                Leaf::Expr(g) => Some(g.clone()),
                _ => None,
            })
            .collect()
    }

    /// Each `()`, reported at its token (zero extents are reported as they are read);
    /// whether there was none.
    fn check_empty(&self, errs: &mut Errors) -> bool {
        match self {
            Tree::Leaf(..) => true,
            Tree::Tuple(items, g)
                if items.is_empty() && g.delimiter() == Delimiter::Parenthesis =>
            {
                errs.at(
                    g,
                    "empty parentheses `()`: a tuple needs at least one mode, e.g. `(4)` or `(2,3)`",
                );
                false
            }
            // every empty tuple is reported, not only the first
            Tree::Tuple(items, _) => items
                .iter()
                .map(|i| i.check_empty(errs))
                .collect::<Vec<_>>()
                .into_iter()
                .all(|ok| ok),
        }
    }
}

/// A parsed `SHAPE[:STRIDE]`.
pub(crate) struct LayoutInput {
    pub(crate) shape: Tree,
    pub(crate) stride: Option<Tree>,
}

/// Parses and checks `SHAPE[:STRIDE]` notation; `None` when the structure itself failed
/// (the placeholder then cannot follow the user's profile).
pub(crate) fn layout_input(src: &Source, errs: &mut Errors) -> Option<LayoutInput> {
    let mut p = Parser::new(&src.text);
    let mut next = 0;
    let shape = int_tree(src, &mut p, &mut next, errs)?;
    let mut stride = None;
    if p.eat(':') {
        stride = Some(int_tree(src, &mut p, &mut next, errs)?);
    } else if p.peek().is_some() {
        let at = p.pos();
        errs.at(
            src.tokens_for(at, src.text.len()),
            "expected `:` between the shape and the stride, as in `(2,3):(1,2)`",
        );
        return None;
    }
    if p.peek().is_some() {
        let at = p.pos();
        errs.at(
            src.tokens_for(at, src.text.len()),
            "unexpected tokens after the stride: a layout is `SHAPE:STRIDE`",
        );
        return None;
    }
    let shape_ok = shape.check_empty(errs);
    if let Some(st) = &stride {
        // congruence is not asked of an empty tuple already reported
        if st.check_empty(errs) && shape_ok && check_congruent(&shape, st, errs) {
            check_overflow(&shape, Some(st), errs);
        }
    } else {
        check_overflow(&shape, None, errs);
    }
    Some(LayoutInput { shape, stride })
}

/// Parses and checks one integer tree (`shape!`, `stride!`, `coord!`).
pub(crate) fn tree_input(src: &Source, role: Role, errs: &mut Errors) -> Option<Tree> {
    let mut p = Parser::new(&src.text);
    let t = int_tree(src, &mut p, &mut 0, errs)?;
    if p.peek().is_some() {
        let at = p.pos();
        errs.at(
            src.tokens_for(at, src.text.len()),
            format!("unexpected tokens after {}", role.tree()),
        );
    }
    t.check_empty(errs);
    for g in t.exprs() {
        errs.at(
            g,
            "`{...}` leaves are run-time values: a static tree needs integer literal leaves",
        );
    }
    Some(t)
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

/// Size and cosize must fit in 64 bits, as the core's `Layout::from_trees` requires
/// (checked here by that very function once every leaf is a literal).
fn check_overflow(shape: &Tree, stride: Option<&Tree>, errs: &mut Errors) {
    let lits = |t: &Tree| -> Option<Vec<u64>> {
        t.leaves()
            .into_iter()
            .map(|l| match l {
                Leaf::Lit(v) => Some(*v),
                _ => None,
            })
            .collect()
    };
    let Some(ext) = lits(shape) else { return };
    if ext.contains(&0) {
        return; // reported as a zero extent
    }
    let size = ext.iter().try_fold(1u64, |a, &e| a.checked_mul(e));
    if size.is_none() {
        errs.at(
            shape.tokens(),
            "integer overflow: the size of this layout does not fit in 64 bits; use smaller extents",
        );
        return;
    }
    let Some(st) = stride else { return };
    let Some(d) = lits(st) else { return };
    let cosize = ext
        .iter()
        .zip(&d)
        .try_fold(0u64, |acc, (&e, &d)| {
            (e - 1).checked_mul(d)?.checked_add(acc)
        })
        .and_then(|m| m.checked_add(1));
    if cosize.is_none() {
        errs.at(
            st.tokens(),
            "integer overflow: the cosize of this layout does not fit in 64 bits; use smaller extents or strides",
        );
    }
}

/// The capacity message for a core capacity error, naming the real limit.
pub(crate) fn capacity_message(e: CoreError) -> Option<String> {
    match e {
        CoreError::TooManyLeaves => Some(format!(
            "too many leaves: a layout holds at most {MAX_LEAVES} leaves (strideweave::MAX_LEAVES)"
        )),
        CoreError::TooManyNodes => Some(format!(
            "too deeply nested: a layout holds at most {MAX_NODES} tree nodes, leaves and parentheses (strideweave::MAX_NODES)"
        )),
        _ => None,
    }
}

/// What an expression inside `layout!` computes to.
pub(crate) enum Computed {
    /// A layout.
    Layout(Layout),
    /// A swizzled layout `Sw<B,M,S> o L` (offset 0).
    Swizzled(strideweave_core::Swizzle, Layout),
}

/// Evaluates an algebra expression with the core's `eval` language. A failure is one
/// error at the argument it is about (the innermost failing call's blamed argument), in
/// the runtime error's words.
pub(crate) fn algebra(src: &Source, errs: &mut Errors) -> Option<Computed> {
    let text = src.text.as_str();
    match eval(text) {
        Ok(Value::Layout(l)) => Some(Computed::Layout(l)),
        Ok(Value::Composed(c)) if c.offset() == 0 => {
            Some(Computed::Swizzled(c.swizzle(), c.layout()))
        }
        Ok(other) => {
            errs.at(
                src.all(),
                format!(
                    "`layout!` needs an expression whose value is a layout or a swizzled layout `Sw<B,M,S> o L`; this one is `{other}`"
                ),
            );
            None
        }
        Err(e) if e.column().is_some() => {
            src.report(&e, (0, text.len()), errs);
            None
        }
        Err(e) => {
            let (start, end) = blame(text, 0, text.len());
            errs.at(src.tokens_for(start, end), e.message());
            None
        }
    }
}

/// The byte range to blame for the failure of expression `text[start..end]`: the
/// innermost failing argument, or for a call whose arguments all evaluate, the argument
/// its rule is about.
fn blame(text: &str, start: usize, end: usize) -> (usize, usize) {
    let expr = &text[start..end];
    let trimmed = expr.trim_start();
    let lead = expr.len() - trimmed.len();
    let Some(open) = trimmed.find('(') else {
        return (start, end);
    };
    let name = trimmed[..open].trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return (start, end); // a literal value, not a call
    }
    let args = arguments(text, start + lead + open, end);
    for &(a, b) in &args {
        if eval(&text[a..b]).is_err() {
            return blame(text, a, b);
        }
    }
    let err = eval(expr).err();
    let pick = err.as_ref().and_then(|e| {
        if let Some(i) = e.message().find("as argument ") {
            let n: String = e.message()[i + 12..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            return n.parse::<usize>().ok().map(|n| n.saturating_sub(1));
        }
        let core = e.core()?;
        match (name, core) {
            (_, CoreError::Overflow { .. })
            | (_, CoreError::TooManyLeaves)
            | (_, CoreError::TooManyNodes) => None,
            ("complement", CoreError::CotargetTooSmall { .. }) => Some(1),
            ("complement" | "left_inverse" | "right_inverse" | "coalesce" | "filter", _) => Some(0),
            _ if args.len() >= 2 => Some(1),
            _ => None,
        }
    });
    match pick.and_then(|i| args.get(i)) {
        Some(&(a, b)) => (a, b),
        None => (start, end),
    }
}

/// The byte ranges of the comma-separated arguments inside the parentheses opening at
/// `open` (top-level commas only).
fn arguments(text: &str, open: usize, end: usize) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut from = open + 1;
    for (i, &c) in bytes.iter().enumerate().take(end).skip(open) {
        match c {
            b'(' | b'[' => depth += 1,
            b')' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if from < i {
                        args.push((from, i));
                    }
                    break;
                }
            }
            b',' if depth == 1 => {
                args.push((from, i));
                from = i + 1;
            }
            _ => {}
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blamed(text: &str) -> &str {
        let (a, b) = blame(text, 0, text.len());
        &text[a..b]
    }

    #[test]
    fn arguments_split_at_top_level_commas_only() {
        let t = "compose((4,6):(1,5),[2:1,4:1])";
        let args: Vec<&str> = arguments(t, 7, t.len())
            .into_iter()
            .map(|(a, b)| &t[a..b])
            .collect();
        assert_eq!(args, ["(4,6):(1,5)", "[2:1,4:1]"]);
    }

    /// Issue 9 item 2: one error at the offending argument's tokens.
    #[test]
    fn a_failed_rule_is_blamed_on_the_argument_it_is_about() {
        assert_eq!(blamed("compose((4,6):(1,5),6:1)"), "6:1");
        assert_eq!(blamed("complement((4,2):(1,1),8)"), "(4,2):(1,1)");
        assert_eq!(blamed("complement(8:1,4)"), "4");
        assert_eq!(blamed("left_inverse((2,2):(1,1))"), "(2,2):(1,1)");
        assert_eq!(
            blamed("zipped_divide((4,4):(1,4),[2:1,2:1,2:1])"),
            "[2:1,2:1,2:1]"
        );
        assert_eq!(blamed("compose((4,6):(1,5),true)"), "true");
        // the innermost failing call, then its argument
        assert_eq!(
            blamed("compose(coalesce((4,6):(1,5)),complement((2,2):(1,1),4))"),
            "(2,2):(1,1)"
        );
        // an invalid literal operand is blamed as a whole
        assert_eq!(blamed("compose((2,0):(1,1),2:1)"), "(2,0):(1,1)");
    }
}
