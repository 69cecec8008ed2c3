//! The one error type of the tensor layer: every rejection names the rule it broke.

use std::fmt;

/// The rule a rejected spec, plan or binding broke.
///
/// ```
/// use strideweave::tensor::{Dims, Rule};
/// let err = Dims::new(&[1, 1, 1, 1, 1, 1, 1]).unwrap_err();
/// assert_eq!(err.rule(), Rule::TooManyDims);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// More than six dimensions.
    TooManyDims,
    /// A negative extent (only text can spell one).
    NegativeExtent,
    /// Size, span or offset arithmetic overflowed 64 bits (or the address space).
    Overflow,
    /// The text form of a spec is malformed.
    Syntax,
    /// A strided placement must have exactly one stride per axis.
    StrideCount,
    /// Negative strides are rejected.
    NegativeStride,
    /// Strides must be multiples of the element width.
    MisalignedStride,
    /// A zero stride is allowed only on axes of extent 0 or 1 (no broadcast).
    ZeroStride,
    /// The conservative non-overlap rule failed.
    OverlappingStrides,
    /// `roles` must have one character per logical axis.
    RolesLength,
    /// A D/H/W/C role may be used at most once.
    RoleTwice,
    /// At least one role must be mapped.
    NoRole,
    /// A tile entry must be at least one.
    ZeroTile,
    /// The tile entry of an absent role must be one.
    AbsentRoleTile,
    /// `align` must be a power of two.
    AlignNotPowerOfTwo,
    /// MlaCBlocked needs rank 3 or more.
    RankBelowThree,
    /// The operation does not admit this dtype on this port.
    UnsupportedDType,
    /// The operation does not admit this placement on this port.
    UnsupportedPlacement,
    /// Input and output dims disagree.
    DimsMismatch,
    /// The reduction axis is not an axis of the input.
    AxisOutOfRange,
    /// Argmax over an empty axis has no answer.
    EmptyReducedAxis,
    /// Wrong number of bindings for the plan's ports.
    PortCount,
    /// A binding's capacity is below the port's required bytes.
    CapacityTooSmall,
    /// A non-empty binding is null.
    NullAddress,
    /// A non-empty binding is not aligned to the port's alignment.
    MisalignedAddress,
    /// Address plus capacity overflows the address space.
    AddressOverflow,
    /// The bounding spans of an input and an output intersect.
    IntersectingSpans,
    /// A coordinate or byte index is outside the tensor.
    OutOfRange,
    /// A static tile shape does not match the plan's tile.
    TileMismatch,
}

impl Rule {
    /// The rule's short kebab-case name, as printed in error messages.
    ///
    /// ```
    /// assert_eq!(strideweave::tensor::Rule::ZeroStride.name(), "zero-stride");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rule::TooManyDims => "too-many-dims",
            Rule::NegativeExtent => "negative-extent",
            Rule::Overflow => "overflow",
            Rule::Syntax => "syntax",
            Rule::StrideCount => "stride-count",
            Rule::NegativeStride => "negative-stride",
            Rule::MisalignedStride => "misaligned-stride",
            Rule::ZeroStride => "zero-stride",
            Rule::OverlappingStrides => "overlapping-strides",
            Rule::RolesLength => "roles-length",
            Rule::RoleTwice => "role-twice",
            Rule::NoRole => "no-role",
            Rule::ZeroTile => "zero-tile",
            Rule::AbsentRoleTile => "absent-role-tile",
            Rule::AlignNotPowerOfTwo => "align-not-power-of-two",
            Rule::RankBelowThree => "rank-below-three",
            Rule::UnsupportedDType => "unsupported-dtype",
            Rule::UnsupportedPlacement => "unsupported-placement",
            Rule::DimsMismatch => "dims-mismatch",
            Rule::AxisOutOfRange => "axis-out-of-range",
            Rule::EmptyReducedAxis => "empty-reduced-axis",
            Rule::PortCount => "port-count",
            Rule::CapacityTooSmall => "capacity-too-small",
            Rule::NullAddress => "null-address",
            Rule::MisalignedAddress => "misaligned-address",
            Rule::AddressOverflow => "address-overflow",
            Rule::IntersectingSpans => "intersecting-spans",
            Rule::OutOfRange => "out-of-range",
            Rule::TileMismatch => "tile-mismatch",
        }
    }
}

/// A rejected spec, plan or binding: the [`Rule`] broken and the offending values.
///
/// ```
/// use strideweave::tensor::{Rule, TensorSpec};
/// let err = "f32[2,3] strided(4,0)".parse::<TensorSpec>().unwrap()
///     .required_bytes().map(|_| ());
/// assert!(err.is_ok());
/// let err = "f32[2] strided(4,4)".parse::<TensorSpec>().unwrap_err();
/// assert_eq!(err.rule(), Rule::StrideCount);
/// assert!(err.to_string().starts_with("stride-count:"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorError {
    rule: Rule,
    detail: String,
}

/// Admission errors of `prepare` are tensor errors too.
pub type AdmissionError = TensorError;

impl TensorError {
    /// Builds an error for `rule` with a message naming the offending values.
    pub fn new(rule: Rule, detail: impl Into<String>) -> Self {
        TensorError {
            rule,
            detail: detail.into(),
        }
    }

    /// The rule that was broken.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The message without the rule name.
    pub fn detail(&self) -> &str {
        &self.detail
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // the detail often quotes the user's spec text: escape its control characters
        write!(
            f,
            "{}: {}",
            self.rule.name(),
            crate::escape_controls(&self.detail)
        )
    }
}

impl std::error::Error for TensorError {}

/// Checked `a * b`, naming the operands on overflow.
pub(crate) fn mul(a: u64, b: u64, what: &str) -> Result<u64, TensorError> {
    a.checked_mul(b).ok_or_else(|| {
        TensorError::new(
            Rule::Overflow,
            format!("{what}: {a} * {b} overflows 64 bits"),
        )
    })
}

/// Checked `a + b`, naming the operands on overflow.
pub(crate) fn add(a: u64, b: u64, what: &str) -> Result<u64, TensorError> {
    a.checked_add(b).ok_or_else(|| {
        TensorError::new(
            Rule::Overflow,
            format!("{what}: {a} + {b} overflows 64 bits"),
        )
    })
}

/// Checked round-up of `a` to a multiple of the power of two `align`.
pub(crate) fn round_up(a: u64, align: u64, what: &str) -> Result<u64, TensorError> {
    let r = add(a, align - 1, what)?;
    Ok(r & !(align - 1))
}
