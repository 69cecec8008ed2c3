//! The text notation (`spec/layout-notation.md`): a small hand-written parser for integer
//! trees, layouts, tilers and trees, shared by `FromStr` and the `eval` language.
//!
//! ```
//! use strideweave::notation::parse_layout;
//! let l = parse_layout(" (2, (3,4)) : (1,(10, 100)) ").unwrap();
//! assert_eq!(l.to_string(), "(2,(3,4)):(1,(10,100))");
//! ```

use crate::error::LayoutError;
use crate::int_tuple::{IntTuple, Node, Shape, Stride};
use crate::Layout;

/// A cursor over notation text that reports errors with their 1-based column.
pub struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

/// Deepest nesting of calls, tilers and trees an expression may have.
pub const MAX_NESTING: usize = 64;

impl<'a> Parser<'a> {
    /// A parser at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Parser {
            text,
            pos: 0,
            depth: 0,
        }
    }

    /// Enters one level of nesting, failing past [`MAX_NESTING`] (so a hostile line is an
    /// error, not a stack overflow).
    pub fn enter(&mut self) -> Result<(), LayoutError> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(format!(
                "expression nested more than {MAX_NESTING} levels deep"
            )));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves one level of nesting.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Byte offset of the next unread character.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves back to an earlier position from [`Parser::pos`], to read the same text
    /// another way (`eval` reads `(_,2)` as a slicing coordinate after it fails as a tuple).
    pub fn rewind(&mut self, pos: usize) {
        self.pos = pos.min(self.pos);
    }

    /// A syntax error at the current position.
    pub fn error(&self, msg: impl std::fmt::Display) -> LayoutError {
        self.error_at(self.pos, msg)
    }

    /// A syntax error at byte offset `pos`.
    pub fn error_at(&self, pos: usize, msg: impl std::fmt::Display) -> LayoutError {
        let col = self.text[..pos.min(self.text.len())].chars().count() + 1;
        LayoutError::syntax(format!("{msg} at column {col}")).with_column(col)
    }

    /// Skips whitespace and returns the next character without consuming it.
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    /// Consumes `c` if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consumes `c` or fails naming what was found instead.
    pub fn expect(&mut self, c: char) -> Result<(), LayoutError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{c}'")))
        }
    }

    /// An error "expected WHAT, found ...".
    pub fn unexpected(&mut self, what: &str) -> LayoutError {
        match self.peek() {
            Some(c) => self.error(format!("expected {what}, found '{c}'")),
            None => self.error(format!("expected {what}, found end of input")),
        }
    }

    /// Fails unless only whitespace is left.
    pub fn finish(&mut self) -> Result<(), LayoutError> {
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(self.error(format!("unexpected '{c}' after the end of the value"))),
        }
    }

    /// An identifier (`[A-Za-z_][A-Za-z0-9_]*`), if one is next.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let first = rest.chars().next()?;
        if !(first.is_ascii_alphabetic() || first == '_') {
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.pos += len;
        Some(&rest[..len])
    }

    /// An unsigned decimal integer, if one is next; out-of-range values are value errors,
    /// and so is a negative literal (`-2`): the notation has no signed values, but a
    /// negative extent, stride or id is the spec's value error, not a typo.
    pub fn integer(&mut self) -> Result<Option<u64>, LayoutError> {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        if let Some(neg) = rest.strip_prefix('-') {
            let len = neg.find(|c: char| !c.is_ascii_digit()).unwrap_or(neg.len());
            if len > 0 {
                return Err(LayoutError::value(format!(
                    "-{} is negative: extents, strides, coordinates and ids are non-negative integers",
                    &neg[..len]
                )));
            }
            return Ok(None);
        }
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if len == 0 {
            return Ok(None);
        }
        let digits = &rest[..len];
        let v = digits
            .parse::<u64>()
            .map_err(|_| LayoutError::value(format!("integer {digits} does not fit in 64 bits")))?;
        self.pos += len;
        Ok(Some(v))
    }

    /// An integer tree: `5`, `()`, `(2,(3,4))`.
    pub fn int_tuple(&mut self) -> Result<IntTuple, LayoutError> {
        let mut t = IntTuple::EMPTY;
        if let Some(v) = self.integer()? {
            t.push_leaf(v)
                .map_err(|e| LayoutError::from_core("int tuple", e))?;
            return Ok(t);
        }
        if self.peek() != Some('(') {
            return Err(self.unexpected("an integer or '('"));
        }
        self.items_into(&mut t)?;
        Ok(t)
    }

    /// `( item, ... )` appended to `t` without outer parentheses.
    fn items_into(&mut self, t: &mut IntTuple) -> Result<(), LayoutError> {
        self.expect('(')?;
        if self.eat(')') {
            return Ok(());
        }
        loop {
            if let Some(v) = self.integer()? {
                t.push_leaf(v)
                    .map_err(|e| LayoutError::from_core("int tuple", e))?;
            } else if self.peek() == Some('(') {
                t.push_node(Node::Push)
                    .map_err(|e| LayoutError::from_core("int tuple", e))?;
                self.items_into(t)?;
                t.push_node(Node::Pop)
                    .map_err(|e| LayoutError::from_core("int tuple", e))?;
            } else {
                return Err(self.unexpected("an integer or '('"));
            }
            if self.eat(')') {
                return Ok(());
            }
            if !self.eat(',') {
                return Err(self.unexpected("',' or ')'"));
            }
        }
    }

    /// `SHAPE:STRIDE`, or `SHAPE` alone with CuTe's compact column-major strides
    /// (as `layout!((4,8))` takes it), checked.
    pub fn layout(&mut self) -> Result<Layout, LayoutError> {
        let shape = self.int_tuple()?;
        if !self.eat(':') {
            if self.peek().is_some() {
                return Err(self.unexpected("':'"));
            }
            return Layout::col_major(Shape::from_tuple(shape)?);
        }
        let stride = self.int_tuple()?;
        make_layout(shape, stride)
    }
}

/// A layout from parsed trees: positive extents, congruence, size and cosize in range.
pub fn make_layout(shape: IntTuple, stride: IntTuple) -> Result<Layout, LayoutError> {
    Layout::new(Shape::from_tuple(shape)?, Stride::from_tuple(stride)?)
}

/// Parses a whole string as an integer tree.
pub fn parse_int_tuple(s: &str) -> Result<IntTuple, LayoutError> {
    let mut p = Parser::new(s);
    let t = p.int_tuple()?;
    p.finish()?;
    Ok(t)
}

/// Parses a whole string as `SHAPE:STRIDE`, or as a shape alone with compact
/// column-major strides.
///
/// ```
/// use strideweave::{notation::parse_layout, Layout};
/// assert_eq!(parse_layout("(2,2)").unwrap().to_string(), "(2,2):(1,2)");
/// assert_eq!("(4,(2,3))".parse::<Layout>().unwrap().to_string(), "(4,(2,3)):(1,(4,8))");
/// assert!(parse_layout("(2,0)").is_err());
/// ```
pub fn parse_layout(s: &str) -> Result<Layout, LayoutError> {
    let mut p = Parser::new(s);
    let l = p.layout()?;
    p.finish()?;
    Ok(l)
}

impl std::str::FromStr for IntTuple {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Self, LayoutError> {
        parse_int_tuple(s)
    }
}

impl Parser<'_> {
    /// Consumes the identifier `word` if it is next (and not just the start of a longer one).
    pub fn eat_word(&mut self, word: &str) -> bool {
        let save = self.pos;
        match self.ident() {
            Some(w) if w == word => true,
            _ => {
                self.pos = save;
                false
            }
        }
    }

    /// A signed decimal integer (`-3`, `5`) that fits in `i32`, for swizzle shifts.
    fn signed(&mut self, what: &str) -> Result<i32, LayoutError> {
        let start = self.pos();
        let negative = self.eat('-');
        let v = match self.integer()? {
            Some(v) => v,
            None => return Err(self.unexpected(what)),
        };
        let v = i64::try_from(v).ok().filter(|v| *v <= i32::MAX as i64);
        match v {
            Some(v) => Ok(if negative { -(v as i32) } else { v as i32 }),
            None => Err(LayoutError::value(format!(
                "{what} at column {} does not fit in 32 bits",
                start + 1
            ))),
        }
    }
}

/// `Sw<B,M,S>`: a swizzle (CuTe's spelling), `S` possibly negative.
pub fn swizzle(p: &mut Parser) -> Result<crate::Swizzle, LayoutError> {
    let start = p.pos();
    if !p.eat_word("Sw") {
        return Err(p.unexpected("'Sw<'"));
    }
    swizzle_params(p, start)
}

/// `<B,M,S>` after the word `Sw` that started at byte `start`.
pub fn swizzle_params(p: &mut Parser, start: usize) -> Result<crate::Swizzle, LayoutError> {
    p.expect('<')?;
    let b = p.signed("the swizzle's B")?;
    p.expect(',')?;
    let m = p.signed("the swizzle's M")?;
    p.expect(',')?;
    let s = p.signed("the swizzle's S")?;
    p.expect('>')?;
    if b < 0 || m < 0 {
        return Err(LayoutError::value(format!(
            "swizzle Sw<{b},{m},{s}> at column {}: B and M are non-negative",
            start + 1
        )));
    }
    crate::Swizzle::new(b as u32, m as u32, s)
}

/// An offset of a composed layout: `N`, or `_N` as CuTe prints a static integer.
pub fn cute_integer(p: &mut Parser) -> Result<Option<u64>, LayoutError> {
    if p.peek() == Some('_') {
        let start = p.pos();
        let word = p.ident().unwrap_or_default();
        return match word[1..].parse::<u64>() {
            Ok(v) => Ok(Some(v)),
            Err(_) => Err(p.error_at(start, format!("'{word}' is not an integer like _0"))),
        };
    }
    p.integer()
}

/// `Sw<B,M,S> o [OFFSET o] SHAPE:STRIDE`: a swizzled layout.
pub fn composed_layout(p: &mut Parser) -> Result<crate::ComposedLayout, LayoutError> {
    let sw = swizzle(p)?;
    if !p.eat_word("o") {
        return Err(p.unexpected("'o' after the swizzle"));
    }
    let mut offset = 0;
    let shape = match cute_integer(p)? {
        Some(v) if p.eat_word("o") => {
            offset = v;
            p.int_tuple()?
        }
        Some(v) => IntTuple::scalar(v),
        None => p.int_tuple()?,
    };
    p.expect(':')?;
    let stride = p.int_tuple()?;
    crate::ComposedLayout::new(sw, offset, make_layout(shape, stride)?)
}
