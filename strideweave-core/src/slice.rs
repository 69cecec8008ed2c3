//! Slicing and dicing with `_` (CuTe's `slice`, `dice`, `slice_and_offset`): a coordinate
//! in which some items are `_` picks those modes of a layout and fixes the others.

use crate::error::{CoreError, LayoutError};
use crate::int_tuple::{IntTuple, Node, MAX_LEAVES};
use crate::notation::Parser;
use crate::Layout;
use std::fmt;

/// A coordinate whose items may be `_` ("all of this mode"), e.g. `(_,2)` or `(1,(_,0))`.
///
/// ```
/// use strideweave::{Layout, SliceCoord};
/// let l: Layout = "(4,(2,3)):(1,(4,8))".parse().unwrap();
/// let c: SliceCoord = "(_,(1,2))".parse().unwrap();
/// assert_eq!(l.slice_and_offset(&c).unwrap(), ("4:1".parse().unwrap(), 20));
/// assert_eq!(l.dice(&c).unwrap().to_string(), "(2,3):(4,8)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SliceCoord {
    /// The coordinate, with 0 at each `_` leaf.
    coord: IntTuple,
    /// Bit `i` set: leaf `i` is `_`.
    holes: u32,
}

/// A slicing coordinate as a recursive value.
enum Item {
    Hole,
    Int(u64),
    Tup(Vec<Item>),
}

impl SliceCoord {
    /// Parses `_` and integers in a tuple, e.g. `(_,(1,_))`.
    pub fn parse_from(p: &mut Parser) -> Result<SliceCoord, LayoutError> {
        let mut c = SliceCoord {
            coord: IntTuple::EMPTY,
            holes: 0,
        };
        if p.peek() == Some('(') {
            c.items(p)?;
        } else {
            c.item(p)?;
        }
        Ok(c)
    }

    fn item(&mut self, p: &mut Parser) -> Result<(), LayoutError> {
        let core = |e: CoreError| LayoutError::from_core("coordinate", e);
        if p.eat('_') {
            let n = self.coord.leaf_count();
            self.coord.push_leaf(0).map_err(core)?;
            self.holes |= 1 << n; // n < MAX_LEAVES = 32
            Ok(())
        } else if let Some(v) = p.integer()? {
            self.coord.push_leaf(v).map_err(core)
        } else if p.peek() == Some('(') {
            self.coord.push_node(Node::Push).map_err(core)?;
            self.items(p)?;
            self.coord.push_node(Node::Pop).map_err(core)
        } else {
            Err(p.unexpected("an integer, '_' or '('"))
        }
    }

    fn items(&mut self, p: &mut Parser) -> Result<(), LayoutError> {
        p.enter()?;
        p.expect('(')?;
        if !p.eat(')') {
            loop {
                self.item(p)?;
                if p.eat(')') {
                    break;
                }
                if !p.eat(',') {
                    return Err(p.unexpected("',' or ')'"));
                }
            }
        }
        p.leave();
        Ok(())
    }

    /// A coordinate without `_`.
    pub fn from_tuple(coord: IntTuple) -> SliceCoord {
        SliceCoord { coord, holes: 0 }
    }

    /// Whether some item is `_`.
    pub fn has_holes(&self) -> bool {
        self.holes != 0
    }

    /// The coordinate with `_` read as 0.
    pub fn zeroed(&self) -> IntTuple {
        self.coord
    }

    fn tree(&self) -> Item {
        let leaf = |i: usize| {
            if self.holes & (1 << i) != 0 {
                Item::Hole
            } else {
                Item::Int(self.coord.leaf(i))
            }
        };
        if self.coord.is_scalar() {
            return leaf(0);
        }
        let mut stack: Vec<Vec<Item>> = vec![Vec::new()];
        let mut i = 0;
        for n in self.coord.recipe() {
            match n {
                Node::Leaf => {
                    stack.last_mut().expect("open tuple").push(leaf(i));
                    i += 1;
                }
                Node::Push => stack.push(Vec::new()),
                Node::Pop => {
                    let items = stack.pop().expect("balanced recipe");
                    stack.last_mut().expect("open tuple").push(Item::Tup(items));
                }
            }
        }
        Item::Tup(stack.pop().expect("outer tuple"))
    }
}

impl fmt::Display for SliceCoord {
    /// Like the coordinate's notation, with `_` at each hole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.coord.to_string();
        let mut leaf = 0;
        let mut chars = text.chars().peekable();
        while let Some(ch) = chars.next() {
            if ch.is_ascii_digit() {
                while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    chars.next();
                }
                if self.holes & (1 << leaf) != 0 {
                    f.write_str("_")?;
                } else {
                    write!(f, "{}", self.coord.leaf(leaf))?;
                }
                leaf += 1;
            } else {
                write!(f, "{ch}")?;
            }
        }
        debug_assert!(leaf <= MAX_LEAVES);
        Ok(())
    }
}

impl fmt::Debug for SliceCoord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SliceCoord({self})")
    }
}

impl std::str::FromStr for SliceCoord {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<SliceCoord, LayoutError> {
        let mut p = Parser::new(s);
        let c = SliceCoord::parse_from(&mut p)?;
        p.finish()?;
        Ok(c)
    }
}

/// Walks `c` over `m`: `keep_holes` keeps the modes under `_` (slice), otherwise the modes
/// under integers (dice); integers add their index to `offset`.
fn walk(
    m: &Layout,
    c: &Item,
    keep_holes: bool,
    out: &mut Layout,
    offset: &mut u64,
) -> Result<(), CoreError> {
    match c {
        Item::Hole => {
            if keep_holes {
                out.push_mode(m)?;
            }
        }
        Item::Int(v) => {
            *offset = offset
                .checked_add(m.index_of(*v)?)
                .ok_or(CoreError::Overflow {
                    op: '+',
                    lhs: *offset,
                    rhs: 0,
                })?;
            if !keep_holes {
                out.push_mode(m)?;
            }
        }
        Item::Tup(items) => {
            if m.rank() != items.len() || (m.shape_tuple().is_scalar() && items.len() == 1) {
                return Err(CoreError::CoordinateMismatch);
            }
            for (i, it) in items.iter().enumerate() {
                walk(&m.mode(i)?, it, keep_holes, out, offset)?;
            }
        }
    }
    Ok(())
}

impl Layout {
    fn slice_walk(
        &self,
        c: &SliceCoord,
        keep_holes: bool,
        op: &str,
    ) -> Result<(Layout, u64), LayoutError> {
        let mut out = Layout::EMPTY;
        let mut offset = 0;
        let tree = c.tree();
        if let Item::Hole = tree {
            // `_` alone is the whole layout
            return Ok(if keep_holes {
                (*self, 0)
            } else {
                (Layout::EMPTY, 0)
            });
        }
        let result = match (&tree, self.shape_tuple().is_scalar()) {
            // a tuple coordinate addresses the top-level modes
            (Item::Tup(items), _) if items.len() == self.rank() => {
                items.iter().enumerate().try_for_each(|(i, it)| {
                    walk(&self.mode(i)?, it, keep_holes, &mut out, &mut offset)
                })
            }
            (Item::Tup(_), _) => Err(CoreError::CoordinateMismatch),
            _ => walk(self, &tree, keep_holes, &mut out, &mut offset),
        };
        result
            .and_then(|_| out.validated())
            .map(|l| (l, offset))
            .map_err(|e| match e {
                CoreError::CoordinateMismatch => LayoutError::value(format!(
                    "{op}({self}, {c}): the coordinate does not match the hierarchy of shape {}",
                    self.shape()
                )),
                e => LayoutError::from_core(format!("{op}({self}, {c})"), e),
            })
    }

    /// CuTe's `slice(c, L)`: the modes of `self` under each `_` of `c`, in order, as the
    /// modes of the result (the coordinate's own nesting is not kept).
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.slice_coord(&"(_,2)".parse().unwrap()).unwrap().to_string(), "4:1");
    /// ```
    pub fn slice_coord(&self, c: &SliceCoord) -> Result<Layout, LayoutError> {
        self.slice_walk(c, true, "slice").map(|r| r.0)
    }

    /// [`Layout::slice_coord`] and the index of `c` with every `_` read as 0: where the
    /// slice starts (CuTe's `slice_and_offset`).
    pub fn slice_and_offset(&self, c: &SliceCoord) -> Result<(Layout, u64), LayoutError> {
        self.slice_walk(c, true, "slice_and_offset")
    }

    /// CuTe's `dice(c, L)`: the complement of a slice, the modes under the integers of `c`.
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,8,2):(1,4,32)".parse().unwrap();
    /// assert_eq!(l.dice(&"(_,2,1)".parse().unwrap()).unwrap().to_string(), "(8,2):(4,32)");
    /// ```
    pub fn dice(&self, c: &SliceCoord) -> Result<Layout, LayoutError> {
        self.slice_walk(c, false, "dice").map(|r| r.0)
    }
}
