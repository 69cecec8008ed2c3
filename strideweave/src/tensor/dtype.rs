//! `DType`: the scalar element type, independent of the placement.

use std::fmt;
use std::str::FromStr;

use super::error::{Rule, TensorError};

/// The scalar type of a tensor's elements. BF16 and F16 are distinct types
/// (element types `half::bf16` and `half::f16`); the placement is not part of the dtype.
///
/// ```
/// use strideweave::tensor::DType;
/// assert_eq!(DType::BF16.width(), 2);
/// assert_ne!(DType::BF16, DType::F16);
/// assert_eq!("bf16".parse::<DType>().unwrap(), DType::BF16);
/// assert_eq!(DType::I64.to_string(), "i64");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE binary32, `f32`.
    F32,
    /// IEEE binary16, `half::f16`.
    F16,
    /// bfloat16, `half::bf16`.
    BF16,
    /// 32-bit signed integer (argmax output).
    I32,
    /// 64-bit signed integer (argmax output).
    I64,
}

impl DType {
    /// Width of one element in bytes.
    pub fn width(self) -> u64 {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I64 => 8,
        }
    }

    /// True for the floating-point types F32, F16 and BF16.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16)
    }

    /// The lower-case name used in the text form.
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I32 => "i32",
            DType::I64 => "i64",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = TensorError;
    fn from_str(s: &str) -> Result<DType, TensorError> {
        Ok(match s.trim() {
            "f32" => DType::F32,
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "i32" => DType::I32,
            "i64" => DType::I64,
            other => {
                return Err(TensorError::new(
                    Rule::Syntax,
                    format!("unknown dtype `{other}` (expected f32, f16, bf16, i32 or i64)"),
                ))
            }
        })
    }
}
