//! Messages built by `const fn`s in a fixed buffer: integer trees and layouts in notation,
//! and the rule a [`CoreError`] names, with its values.
//!
//! The runtime prints through it (`Display` of [`IntTuple`], [`CoreError::describe`]), and
//! static layouts use it in `const` evaluation, where `format!` is not available: a failed
//! static rule panics with `panic!("{}", msg.as_str())`, so a build error shows the same
//! words and values as the runtime error.
//!
//! ```
//! use strideweave::{message::ConstMessage, CoreError, Layout};
//! const A: Layout = match Layout::leaf(6, 1) { Ok(l) => l, Err(_) => panic!() };
//! const MSG: ConstMessage = {
//!     let mut m = ConstMessage::new();
//!     m.str("complement(")
//!         .layout(&A)
//!         .str(", 4): ")
//!         .rule(&CoreError::CotargetTooSmall { size: 6, cotarget: 4 });
//!     m
//! };
//! assert_eq!(MSG.as_str(), "complement(6:1, 4): layout size 6 is larger than cotarget 4");
//! ```

use crate::error::CoreError;
use crate::int_tuple::{IntTuple, Node, MAX_LEAVES, MAX_NODES};
use crate::Layout;

/// Bytes a message holds by default: two layouts of full capacity in notation and a rule
/// fit.
pub const MESSAGE_CAPACITY: usize = 4096;

/// Bytes that always hold one integer tree in notation (32 leaves of at most 20 digits,
/// 96 nodes, their commas and the outer parentheses).
pub const TUPLE_CAPACITY: usize = 1024;

/// A message under construction in a fixed buffer of `N` bytes; text past the capacity is
/// cut and marked with `...`. Every method is a `const fn` that appends and returns the
/// message, so calls chain.
#[derive(Clone, Copy)]
pub struct ConstMessage<const N: usize = MESSAGE_CAPACITY> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> Default for ConstMessage<N> {
    fn default() -> Self {
        Self::empty()
    }
}

impl ConstMessage {
    /// The empty message of the default capacity.
    pub const fn new() -> Self {
        Self::empty()
    }
}

impl<const N: usize> ConstMessage<N> {
    /// The empty message of capacity `N`.
    pub const fn empty() -> Self {
        ConstMessage {
            buf: [0; N],
            len: 0,
        }
    }

    /// The text so far.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(text) {
            Ok(s) => s,
            Err(_) => "(message is not UTF-8)",
        }
    }

    /// Appends `s` (cut at the capacity, at a character boundary, with `...`).
    pub const fn str(&mut self, s: &str) -> &mut Self {
        let bytes = s.as_bytes();
        let room = N.saturating_sub(3);
        let mut i = 0;
        while i < bytes.len() {
            if self.len >= N {
                return self; // already cut
            }
            if self.len >= room && (bytes[i] & 0xC0) != 0x80 {
                if self.len > room {
                    return self; // cut already, after a character's last bytes
                }
                self.buf[self.len] = b'.';
                self.buf[self.len + 1] = b'.';
                self.buf[self.len + 2] = b'.';
                self.len = N;
                return self;
            }
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends one ASCII character.
    pub const fn char(&mut self, c: u8) -> &mut Self {
        let one = [c];
        match core::str::from_utf8(&one) {
            Ok(s) => self.str(s),
            Err(_) => self,
        }
    }

    /// Appends `v` in decimal.
    pub const fn u64(&mut self, v: u64) -> &mut Self {
        let mut digits = [0u8; 20];
        let mut n = 0;
        let mut rest = v;
        loop {
            digits[19 - n] = b'0' + (rest % 10) as u8;
            n += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let (_, text) = digits.split_at(20 - n);
        match core::str::from_utf8(text) {
            Ok(s) => self.str(s),
            Err(_) => self,
        }
    }

    /// Appends an integer tree in canonical notation: a single integer bare, anything
    /// else in parentheses, no spaces (`(2,(3,4))`).
    pub const fn tuple(&mut self, t: &IntTuple) -> &mut Self {
        if t.is_scalar() {
            return self.u64(t.leaf(0));
        }
        self.char(b'(');
        let (mut i, mut leaf, mut first) = (0, 0, true);
        while i < t.node_count() {
            let node = t.node(i);
            if !first && !matches!(node, Node::Pop) {
                self.char(b',');
            }
            match node {
                Node::Leaf => {
                    self.u64(t.leaf(leaf));
                    leaf += 1;
                    first = false;
                }
                Node::Push => {
                    self.char(b'(');
                    first = true;
                }
                Node::Pop => {
                    self.char(b')');
                    first = false;
                }
            }
            i += 1;
        }
        self.char(b')')
    }

    /// Appends a layout as `SHAPE:STRIDE`.
    pub const fn layout(&mut self, l: &Layout) -> &mut Self {
        self.tuple(l.shape().as_tuple())
            .char(b':')
            .tuple(l.stride().as_tuple())
    }

    /// Appends a tiler as `[L,L,...]`.
    pub const fn tiler(&mut self, tiles: &[Layout]) -> &mut Self {
        self.char(b'[');
        let mut i = 0;
        while i < tiles.len() {
            if i > 0 {
                self.char(b',');
            }
            self.layout(&tiles[i]);
            i += 1;
        }
        self.char(b']')
    }

    /// Appends the rule `e` names, with its values, as the runtime error words it.
    pub const fn rule(&mut self, e: &CoreError) -> &mut Self {
        match *e {
            CoreError::TooManyLeaves => self
                .str("more than ")
                .u64(MAX_LEAVES as u64)
                .str(" leaves in one layout"),
            CoreError::TooManyNodes => self
                .str("more than ")
                .u64(MAX_NODES as u64)
                .str(" tree nodes in one layout"),
            CoreError::ZeroExtent => self.str("extents must be at least 1"),
            CoreError::Overflow { op, lhs, rhs } => {
                let op = if op == '+' { b'+' } else { b'*' };
                self.u64(lhs)
                    .char(b' ')
                    .char(op)
                    .char(b' ')
                    .u64(rhs)
                    .str(" overflows 64 bits")
            }
            CoreError::NotCongruent => self.str("shape and stride are not congruent"),
            CoreError::OutOfDomain { value, extent } => self
                .str("key ")
                .u64(value)
                .str(" is outside the shape domain [0, ")
                .u64(extent)
                .char(b')'),
            CoreError::CoordinateMismatch => {
                self.str("coordinate does not match the shape's hierarchy")
            }
            CoreError::ModeOutOfRange { index, rank } => self
                .str("mode ")
                .u64(index)
                .str(" is out of range for rank ")
                .u64(rank),
            CoreError::TooManyTiles { tiles, rank } => self
                .u64(tiles)
                .str(" tiles given for a layout of rank ")
                .u64(rank),
            CoreError::StrideDivisibility { extent, stride } => self
                .str("stride divisibility condition fails: extent ")
                .u64(extent)
                .str(" of A and stride ")
                .u64(stride)
                .str(" of B divide neither way, and B crosses that mode of A"),
            CoreError::ShapeDivisibility { extent, rest } => self
                .str("shape divisibility condition fails: remaining extent ")
                .u64(rest)
                .str(" of B spans past extent ")
                .u64(extent)
                .str(" of A and is not a multiple of it"),
            CoreError::ModeOverlap { extent, reach } => self
                .str("B's modes overlap in A's coordinates: together they reach coordinate ")
                .u64(reach)
                .str(" of a mode of A with extent ")
                .u64(extent)
                .str(", so A(B(c)) is not the sum of the parts"),
            CoreError::ProductOverlap { copies, room } => self
                .str("the complement of A up to size(A)*cosize(B) has room for ")
                .u64(room)
                .str(" copies of A, fewer than cosize(B) = ")
                .u64(copies)
                .str(", and extending it puts copies onto A (the product would not be injective)"),
            CoreError::NotInjective => self.str("layout is not injective (self-overlap)"),
            CoreError::Unchainable { stride, span } => self
                .str("modes do not chain: stride ")
                .u64(stride)
                .str(" is not a multiple of the span ")
                .u64(span)
                .str(" of the smaller-stride modes"),
            CoreError::LeftInverseDivisibility { stride, previous } => self
                .str("left inverse divisibility condition fails: stride ")
                .u64(stride)
                .str(" is not a multiple of the next smaller stride ")
                .u64(previous),
            CoreError::NotEvenlyDivided { extent, tile } => {
                self.u64(tile).str(" does not evenly divide ").u64(extent)
            }
            CoreError::RecastDivisibility { stride, factor } => self
                .str("recast divisibility condition fails: stride ")
                .u64(stride)
                .str(" and factor ")
                .u64(factor)
                .str(" divide neither way"),
            CoreError::NoUnitStride => {
                self.str("downcast needs a stride-1 leaf (adjacent elements) to split")
            }
            CoreError::CotargetTooSmall { size, cotarget } => self
                .str("layout size ")
                .u64(size)
                .str(" is larger than cotarget ")
                .u64(cotarget),
            CoreError::BroadcastExtent { from, to } => self
                .str("extent ")
                .u64(from)
                .str(" cannot broadcast to ")
                .u64(to)
                .str(" (only extent 1 widens)"),
            CoreError::ProfileMismatch => self.str("shape profiles differ"),
            CoreError::InjectivityUndecided { steps } => self
                .str("injectivity not decided: the collision search stopped at its limit of ")
                .u64(steps)
                .str(" steps"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_trees_and_layouts_print_in_notation() {
        assert_eq!(ConstMessage::new().u64(0).as_str(), "0");
        assert_eq!(
            ConstMessage::new().u64(u64::MAX).as_str(),
            "18446744073709551615"
        );
        let mut small = ConstMessage::<8>::empty();
        assert_eq!(small.str("0123456789").as_str(), "01234...");
        for text in ["(2,(3,(4)),()):(1,(2,(6)),())", "((4)):((2))", "7:0"] {
            let l = crate::notation::parse_layout(text).unwrap();
            assert_eq!(ConstMessage::new().layout(&l).as_str(), text);
        }
    }

    #[test]
    fn text_past_the_capacity_is_cut_with_an_ellipsis() {
        let mut m = ConstMessage::new();
        for _ in 0..MESSAGE_CAPACITY {
            m.str("ab");
        }
        assert_eq!(m.as_str().len(), MESSAGE_CAPACITY);
        assert!(m.as_str().ends_with("..."));
    }
}
