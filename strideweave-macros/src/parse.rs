//! Parse: the macro input becomes notation text for the core's parser, with a map from
//! every byte of that text back to the user's tokens, so each error the core reports
//! lands on the token it is about.
//!
//! Reading the tokens checks what only tokens can tell (a float, an identifier where an
//! integer belongs, a negative literal, a `{expression}` leaf); each such leaf is written
//! as a placeholder `1` so the core's parser still sees the whole structure. The structure
//! itself (parentheses, commas, `:`, tilers, calls) is parsed by
//! `strideweave_core::notation` and `strideweave_core::eval`, the same code as at run time.

use crate::validate::Errors;
use proc_macro2::{Delimiter, Group, Punct, Spacing, Span, TokenStream as Tokens, TokenTree};
use quote::ToTokens;
use strideweave_core::notation::Parser;
use strideweave_core::{IntTuple, LayoutError, Node};

/// Which tree a notation input is: decides the words of the messages.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Shape,
    Stride,
    Coord,
}

impl Role {
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Role::Shape => "extent",
            Role::Stride => "stride",
            Role::Coord => "coordinate",
        }
    }
    pub(crate) fn plural(self) -> &'static str {
        match self {
            Role::Shape => "extents",
            Role::Stride => "strides",
            Role::Coord => "coordinates",
        }
    }
    pub(crate) fn tree(self) -> &'static str {
        match self {
            Role::Shape => "a shape",
            Role::Stride => "a stride",
            Role::Coord => "a coordinate",
        }
    }
}

/// A leaf as the user wrote it.
#[derive(Clone)]
pub(crate) enum Leaf {
    /// An integer literal.
    Lit(u64),
    /// A `{expression}` leaf (run-time value).
    Expr(Group),
    /// A leaf already reported as an error.
    Bad,
}

/// A leaf or a parenthesised group, in text order: node `k` of a parsed tree is atom `k`.
#[derive(Clone)]
pub(crate) enum Atom {
    Leaf(Leaf, Tokens),
    Group(Group),
}

/// A stretch of the text and the user's tokens it came from.
struct Piece {
    start: usize,
    end: usize,
    first: Span,
    last: Span,
}

/// The input as notation text, with the way back to the user's tokens.
pub(crate) struct Source {
    pub(crate) text: String,
    pieces: Vec<Piece>,
    pub(crate) atoms: Vec<Atom>,
    /// Whether identifiers and `[...]` belong to the language (algebra expressions).
    expression: bool,
    /// The tree being read: a shape until the top-level `:`, then a stride.
    role: Role,
    depth: usize,
    all: Tokens,
}

impl Source {
    /// Reads `input` as notation of `role` (`expression`: as an `eval` expression),
    /// reporting the leaves no integer tree can hold.
    pub(crate) fn read(input: Tokens, role: Role, expression: bool, errs: &mut Errors) -> Self {
        let mut src = Source {
            text: String::new(),
            pieces: Vec::new(),
            atoms: Vec::new(),
            expression,
            role,
            depth: 0,
            all: input.clone(),
        };
        src.tokens(input, errs);
        src
    }

    /// Inside the `<...>` of `Sw<B,M,S>` in an expression.
    fn in_swizzle_parameters(&self) -> bool {
        self.expression
            && match (self.text.rfind("Sw<"), self.text.rfind('>')) {
                (Some(open), Some(close)) => open > close,
                (Some(_), None) => true,
                _ => false,
            }
    }

    fn push(&mut self, text: &str, first: Span, last: Span) {
        let start = self.text.len();
        self.text.push_str(text);
        self.pieces.push(Piece {
            start,
            end: self.text.len(),
            first,
            last,
        });
    }

    fn leaf(&mut self, leaf: Leaf, tokens: Tokens) {
        let text = match &leaf {
            Leaf::Lit(v) => v.to_string(),
            _ => "1".to_string(),
        };
        let (first, last) = ends(&tokens);
        self.push(&text, first, last);
        self.atoms.push(Atom::Leaf(leaf, tokens));
    }

    fn tokens(&mut self, input: Tokens, errs: &mut Errors) {
        let toks: Vec<TokenTree> = input.into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            let tok = toks[i].clone();
            let role = self.role;
            i += 1;
            match tok {
                TokenTree::Literal(lit) => {
                    let leaf = literal_leaf(&lit, role, errs);
                    if matches!(leaf, Leaf::Lit(0)) && role == Role::Shape && !self.expression {
                        errs.at(
                            &lit,
                            "zero extent `0`: every shape extent must be at least 1",
                        );
                    }
                    self.leaf(leaf, lit.to_token_stream());
                }
                // a negative swizzle shift, `Sw<2,0,-2>`: the core reads it
                TokenTree::Punct(p) if p.as_char() == '-' && self.in_swizzle_parameters() => {
                    self.push("-", p.span(), p.span());
                }
                TokenTree::Punct(p) if p.as_char() == '-' => {
                    let mut tokens = p.to_token_stream();
                    let mut text = "-".to_string();
                    if let Some(next @ TokenTree::Literal(_)) = toks.get(i).cloned() {
                        i += 1;
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
                    self.leaf(Leaf::Bad, tokens);
                }
                TokenTree::Punct(p)
                    if p.as_char() == ':'
                        && p.spacing() == Spacing::Joint
                        && matches!(toks.get(i), Some(TokenTree::Punct(q)) if q.as_char() == ':') =>
                {
                    let second = toks[i].clone();
                    i += 1;
                    errs.at(
                        quote::quote!(#p #second),
                        "`::` is not the layout separator: write one `:` between shape and stride",
                    );
                    self.push(":", p.span(), second.span());
                    self.stride_follows();
                }
                TokenTree::Punct(p) => {
                    if p.as_char() == ':' {
                        self.stride_follows();
                    }
                    let c = p.as_char().to_string();
                    self.push(&c, p.span(), p.span());
                }
                TokenTree::Ident(id) if self.expression => {
                    // `Sw<B,M,S> o L`: the composition operator `o` needs its spaces back
                    let word = id.to_string();
                    let spaced = word == "o";
                    if spaced {
                        self.text.push(' ');
                    }
                    self.push(&word, id.span(), id.span());
                    if spaced {
                        self.text.push(' ');
                    }
                }
                TokenTree::Ident(id) => {
                    errs.at(
                        &id,
                        format!("`{id}` is not an integer leaf: write an integer literal such as `4`, or `{{{id}}}` for a run-time value"),
                    );
                    self.leaf(Leaf::Bad, id.to_token_stream());
                }
                TokenTree::Group(g) => self.group(g, errs),
            }
        }
    }

    /// After the top-level `:` of a layout, leaves are strides.
    fn stride_follows(&mut self) {
        if self.depth == 0 && self.role == Role::Shape && !self.expression {
            self.role = Role::Stride;
        }
    }

    fn group(&mut self, g: Group, errs: &mut Errors) {
        let role = self.role;
        match g.delimiter() {
            Delimiter::Parenthesis => {
                self.atoms.push(Atom::Group(g.clone()));
                self.push("(", g.span_open(), g.span_open());
                self.depth += 1;
                self.tokens(g.stream(), errs);
                self.depth -= 1;
                self.push(")", g.span_close(), g.span_close());
            }
            Delimiter::Bracket if self.expression => {
                self.push("[", g.span_open(), g.span_open());
                self.depth += 1;
                self.tokens(g.stream(), errs);
                self.depth -= 1;
                self.push("]", g.span_close(), g.span_close());
            }
            Delimiter::Bracket => {
                errs.at(
                    &g,
                    format!(
                        "`[...]` is not {}: use parentheses, e.g. `(2,3)`",
                        role.tree()
                    ),
                );
                self.leaf(Leaf::Bad, g.to_token_stream());
            }
            Delimiter::Brace if self.expression => {
                errs.at(
                    &g,
                    "`{...}` is a run-time value: algebra inside `layout!` takes literal operands; call the `Layout` methods for run-time values",
                );
                self.leaf(Leaf::Bad, g.to_token_stream());
            }
            Delimiter::Brace => self.leaf(Leaf::Expr(g.clone()), g.to_token_stream()),
            // an interpolated `macro_rules!` fragment: read what is inside
            Delimiter::None => self.tokens(g.stream(), errs),
        }
    }

    /// The user's tokens behind text bytes `start..end` (at least one piece), for
    /// `syn::Error::new_spanned`.
    pub(crate) fn tokens_for(&self, start: usize, end: usize) -> Tokens {
        let hit: Vec<&Piece> = self
            .pieces
            .iter()
            .filter(|p| p.end > start && p.start < end.max(start + 1))
            .collect();
        let (first, last) = match (hit.first(), hit.last()) {
            (Some(f), Some(l)) => (f.first, l.last),
            // past the end: the last token
            _ => match self.pieces.last() {
                Some(p) => (p.first, p.last),
                None => return self.all.clone(),
            },
        };
        spanned_pair(first, last)
    }

    /// The whole input.
    pub(crate) fn all(&self) -> Tokens {
        self.all.clone()
    }

    /// Reports a core error: at its column when it has one, else at `fallback` (a byte
    /// range of the text).
    pub(crate) fn report(&self, e: &LayoutError, fallback: (usize, usize), errs: &mut Errors) {
        match e.column() {
            Some(col) => {
                let at = col.saturating_sub(1);
                errs.at(self.tokens_for(at, at + 1), without_column(e.message()));
            }
            None => errs.at(self.tokens_for(fallback.0, fallback.1), e.message()),
        }
    }
}

/// Two tokens carrying the first and last span of a stretch: `new_spanned` covers them.
fn spanned_pair(first: Span, last: Span) -> Tokens {
    let mut a = Punct::new('<', Spacing::Alone);
    a.set_span(first);
    let mut b = Punct::new('>', Spacing::Alone);
    b.set_span(last);
    quote::quote!(#a #b)
}

fn ends(tokens: &Tokens) -> (Span, Span) {
    let mut it = tokens.clone().into_iter();
    let first = it.next().map_or(Span::call_site(), |t| t.span());
    let last = it.last().map_or(first, |t| t.span());
    (first, last)
}

/// The core's syntax message without its ` at column N` (the span says where).
fn without_column(msg: &str) -> String {
    match msg.rfind(" at column ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn literal_leaf(lit: &proc_macro2::Literal, role: Role, errs: &mut Errors) -> Leaf {
    let tokens = lit.to_token_stream();
    let text = lit.to_string();
    match syn::parse2::<syn::Lit>(tokens.clone()) {
        Ok(syn::Lit::Int(i)) => match i.base10_parse::<u64>() {
            Ok(v) => Leaf::Lit(v),
            Err(_) => {
                errs.at(
                    &tokens,
                    format!(
                        "integer `{text}` does not fit in 64 bits: {} are at most 18446744073709551615",
                        role.plural()
                    ),
                );
                Leaf::Bad
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
            Leaf::Bad
        }
    }
}

/// A tree of the user's notation: the core's parse, each node with its tokens.
pub(crate) enum Tree {
    Leaf(Leaf, Tokens),
    Tuple(Vec<Tree>, Group),
}

/// One integer tree parsed by the core from `src` at `p`; `next` is the atom it starts
/// at. `None` after reporting the core's error.
pub(crate) fn int_tree(
    src: &Source,
    p: &mut Parser,
    next: &mut usize,
    errs: &mut Errors,
) -> Option<Tree> {
    let start = p.pos();
    match p.int_tuple() {
        Ok(t) => Some(tree_of(&t, &src.atoms, next)),
        Err(e) => {
            match e.core().and_then(crate::validate::capacity_message) {
                Some(m) => errs.at(src.tokens_for(start, src.text.len()), m),
                None => src.report(&e, (start, src.text.len()), errs),
            }
            None
        }
    }
}

/// The parsed tuple `t` dressed with the atoms it was read from.
fn tree_of(t: &IntTuple, atoms: &[Atom], next: &mut usize) -> Tree {
    let outer = match atoms.get(*next) {
        Some(Atom::Group(g)) => {
            *next += 1;
            Some(g.clone())
        }
        _ => None,
    };
    let mut stack: Vec<(Vec<Tree>, Option<Group>)> = vec![(Vec::new(), outer)];
    for node in t.recipe() {
        match node {
            Node::Leaf => {
                let leaf = match atoms.get(*next) {
                    Some(Atom::Leaf(l, tokens)) => Tree::Leaf(l.clone(), tokens.clone()),
                    _ => Tree::Leaf(Leaf::Bad, Tokens::new()),
                };
                *next += 1;
                if let Some((items, _)) = stack.last_mut() {
                    items.push(leaf);
                }
            }
            Node::Push => {
                let g = match atoms.get(*next) {
                    Some(Atom::Group(g)) => Some(g.clone()),
                    _ => None,
                };
                *next += 1;
                stack.push((Vec::new(), g));
            }
            Node::Pop => {
                if let Some((items, g)) = stack.pop() {
                    let g = g.unwrap_or_else(|| Group::new(Delimiter::Parenthesis, Tokens::new()));
                    if let Some((outer, _)) = stack.last_mut() {
                        outer.push(Tree::Tuple(items, g));
                    }
                }
            }
        }
    }
    let (mut items, outer) = stack.pop().unwrap_or_default();
    match outer {
        Some(g) => Tree::Tuple(items, g),
        None if items.len() == 1 => items.remove(0),
        None => Tree::Tuple(items, Group::new(Delimiter::Parenthesis, Tokens::new())),
    }
}
