//! Errors: a value-level [`CoreError`] produced by the `const fn` algebra, and the
//! user-facing [`LayoutError`] that names the offending values.

use std::fmt;

/// Whether an error is about the kind of a value, its contents, or the text it came from.
///
/// This is the spec's `TypeError` / `ValueError` distinction, plus `Syntax` for notation
/// that does not parse. `strideweave eval` prints it as `error: KIND: MESSAGE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text does not parse as notation.
    Syntax,
    /// A value of the wrong kind (a layout where a shape is expected, ...).
    Type,
    /// A well-typed value the operation rejects.
    Value,
}

impl ErrorKind {
    /// The lower-case word `eval` prints for this kind.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Type => "type",
            ErrorKind::Value => "value",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure of the `const fn` core, small and `Copy` so it can be produced at compile time.
///
/// The runtime API turns it into a [`LayoutError`] whose message also shows the layouts
/// involved; static layouts turn it into a build error naming the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoreError {
    /// More leaves than a layout can hold inline.
    TooManyLeaves,
    /// More tree nodes (leaves and parentheses) than a layout can hold inline.
    TooManyNodes,
    /// An extent below one.
    ZeroExtent,
    /// Size, cosize or index arithmetic overflowed `u64`: `lhs op rhs` (`op` is `*` or `+`).
    Overflow { op: char, lhs: u64, rhs: u64 },
    /// Shape and stride trees differ in structure.
    NotCongruent,
    /// A coordinate component or integer key outside its extent.
    OutOfDomain { value: u64, extent: u64 },
    /// A coordinate with a different tree structure than the shape.
    CoordinateMismatch,
    /// A mode index outside `0..rank`.
    ModeOutOfRange { index: u64, rank: u64 },
    /// A tiler or profile with more modes than the layout it applies to.
    TooManyTiles { tiles: u64, rank: u64 },
    /// Composition: neither of A's extent and B's remaining stride divides the other.
    StrideDivisibility { extent: u64, stride: u64 },
    /// Composition: B's remaining extent goes past this mode of A and is not a multiple
    /// of what the mode offers.
    ShapeDivisibility { extent: u64, rest: u64 },
    /// Composition: B's modes, composed separately, would carry between A's modes
    /// (their largest coordinates in one mode of A sum to `reach >= extent`).
    ModeOverlap { extent: u64, reach: u64 },
    /// Product of injective layouts whose copies of A would land on A (CuTe's result is not
    /// injective): `size(A)*cosize(B)` left A's complement no top mode to extend.
    ProductOverlap { copies: u64, room: u64 },
    /// Complement of a layout with colliding indices.
    NotInjective,
    /// The injectivity search gave up at its limit of `steps` steps (per call, or per
    /// `eval` expression) without deciding: a layout of three or more interleaved leaves
    /// with large, unrelated strides.
    InjectivityUndecided { steps: u64 },
    /// An injective layout whose sorted modes do not chain: a stride inside, or (for
    /// `left_inverse`) not a multiple of, the span of the smaller-stride modes.
    Unchainable { stride: u64, span: u64 },
    /// Left inverse: a sorted non-zero stride is not a multiple of the next smaller one
    /// (CuTe's "left inverse divisibility condition").
    LeftInverseDivisibility { stride: u64, previous: u64 },
    /// A block extent that does not divide the target extent it tiles (`tile_to_shape`,
    /// `evenly_divides`), or a shape division where neither value divides the other.
    NotEvenlyDivided { extent: u64, tile: u64 },
    /// `upcast`/`recast`: a stride and the factor divide neither way.
    RecastDivisibility { stride: u64, factor: u64 },
    /// `downcast`/`recast` of a layout with no stride-1 leaf (no adjacent elements to split).
    NoUnitStride,
    /// Complement target smaller than the layout's size, or zero.
    CotargetTooSmall { size: u64, cotarget: u64 },
    /// Broadcast of an extent other than one to a different extent.
    BroadcastExtent { from: u64, to: u64 },
    /// Broadcast target with another profile.
    ProfileMismatch,
}

impl CoreError {
    /// A one-line description of the rule that failed, without the layouts involved
    /// (the words of [`ConstMessage::rule`](crate::message::ConstMessage::rule)).
    pub fn describe(&self) -> String {
        crate::message::ConstMessage::new()
            .rule(self)
            .as_str()
            .to_string()
    }
}

impl fmt::Display for CoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(crate::message::ConstMessage::new().rule(self).as_str())
    }
}

/// `?` from a `const fn` result into `Box<dyn Error>`.
///
/// ```
/// fn leaf() -> Result<strideweave::Layout, Box<dyn std::error::Error>> {
///     Ok(strideweave::Layout::leaf(0, 1)?)
/// }
/// assert_eq!(leaf().unwrap_err().to_string(), "extents must be at least 1");
/// ```
impl std::error::Error for CoreError {}

/// The error every fallible StrideWeave operation returns: a kind and a message that
/// names the offending values. Nothing is partially built when one is returned.
///
/// ```
/// use strideweave::{ErrorKind, Layout, Shape, Stride};
/// let err = Layout::new(Shape::new((2, (3, 4))).unwrap(), Stride::new((1, 2, 6)).unwrap())
///     .unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::Value);
/// assert_eq!(err.message(), "shape (2,(3,4)) and stride (1,2,6) are not congruent");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutError {
    kind: ErrorKind,
    message: String,
    core: Option<CoreError>,
    column: Option<usize>,
}

impl LayoutError {
    /// A value error with the given message.
    pub fn value(message: impl Into<String>) -> Self {
        LayoutError {
            kind: ErrorKind::Value,
            message: message.into(),
            core: None,
            column: None,
        }
    }

    /// A type error with the given message.
    pub fn type_error(message: impl Into<String>) -> Self {
        LayoutError {
            kind: ErrorKind::Type,
            message: message.into(),
            core: None,
            column: None,
        }
    }

    /// A syntax error with the given message.
    pub fn syntax(message: impl Into<String>) -> Self {
        LayoutError {
            kind: ErrorKind::Syntax,
            message: message.into(),
            core: None,
            column: None,
        }
    }

    /// A value error from a core failure, prefixed with what was being done.
    pub fn from_core(context: impl fmt::Display, core: CoreError) -> Self {
        LayoutError {
            kind: ErrorKind::Value,
            message: format!("{context}: {}", core.describe()),
            core: Some(core),
            column: None,
        }
    }

    /// Records the 1-based column of input text the error points at.
    pub fn with_column(mut self, column: usize) -> Self {
        self.column = Some(column);
        self
    }

    /// The 1-based column of the offending text, for syntax errors.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// Value, type or syntax.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The human-readable message (without the kind).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The core rule that failed, when the error came from the algebra.
    pub fn core(&self) -> Option<CoreError> {
        self.core
    }
}

impl fmt::Display for LayoutError {
    /// `KIND: MESSAGE`, with control characters from the input escaped (see
    /// [`escape_controls`]), so that printing an error cannot drive a terminal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, escape_controls(&self.message))
    }
}

impl std::error::Error for LayoutError {}

/// `text` with every control character (C0, DEL, C1) and every bidirectional-override
/// character written as a Rust escape (`\u{1b}`, `\n`), other text unchanged: messages
/// echo user input, and an ESC or a right-to-left override in it must not reach a
/// terminal raw. Escaping twice changes nothing more.
///
/// ```
/// use strideweave::escape_controls;
/// assert_eq!(escape_controls("a\u{1b}[31mb\0"), "a\\u{1b}[31mb\\u{0}");
/// assert_eq!(escape_controls("(2,3):(1,2) → ok"), "(2,3):(1,2) → ok");
/// ```
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `?` for `const fn`: returns the error of a `Result`, or yields its value.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}
pub(crate) use tri;

impl From<CoreError> for LayoutError {
    /// A value error whose message is the failed rule.
    fn from(core: CoreError) -> Self {
        LayoutError {
            kind: ErrorKind::Value,
            message: core.describe(),
            core: Some(core),
            column: None,
        }
    }
}
