//! `Dims`: zero to six logical extents; rank is kept exactly as given.

use super::error::{mul, Rule, TensorError};
use std::fmt;

/// The largest rank a tensor may have.
pub const MAX_RANK: usize = 6;

/// The logical extents of a tensor: 0 to 6 of them, each `>= 0`.
///
/// `Dims[]` is a scalar with one element; a zero extent makes an empty tensor.
/// The rank is never changed: `[2, 3]` stays rank 2.
///
/// ```
/// use strideweave::tensor::Dims;
/// let d = Dims::new(&[2, 3]).unwrap();
/// assert_eq!(d.rank(), 2);
/// assert_eq!(d.element_count().unwrap(), 6);
/// assert_eq!(Dims::scalar().element_count().unwrap(), 1);
/// assert!(Dims::new(&[1; 7]).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Dims {
    rank: u8,
    ext: [u64; MAX_RANK],
}

impl Dims {
    /// Dims from a list of extents; a seventh extent is [`Rule::TooManyDims`].
    pub fn new(extents: &[u64]) -> Result<Dims, TensorError> {
        if extents.len() > MAX_RANK {
            return Err(TensorError::new(
                Rule::TooManyDims,
                format!(
                    "{} dimensions given, at most {MAX_RANK} are allowed",
                    extents.len()
                ),
            ));
        }
        let mut ext = [0u64; MAX_RANK];
        ext[..extents.len()].copy_from_slice(extents);
        Ok(Dims {
            rank: extents.len() as u8,
            ext,
        })
    }

    /// The rank-0 scalar.
    pub fn scalar() -> Dims {
        Dims {
            rank: 0,
            ext: [0; MAX_RANK],
        }
    }

    /// Number of axes.
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// The extents, one per axis.
    pub fn extents(&self) -> &[u64] {
        &self.ext[..self.rank as usize]
    }

    /// True when some extent is zero.
    pub fn is_empty(&self) -> bool {
        self.extents().contains(&0)
    }

    /// Number of logical elements, checked. An empty tensor has zero elements
    /// whatever its other extents; a scalar has one.
    pub fn element_count(&self) -> Result<u64, TensorError> {
        if self.is_empty() {
            return Ok(0);
        }
        self.extents()
            .iter()
            .try_fold(1u64, |acc, &e| mul(acc, e, "element count"))
    }

    /// These dims with axis `axis` removed (rank decreases by one).
    pub fn without_axis(&self, axis: usize) -> Result<Dims, TensorError> {
        if axis >= self.rank() {
            return Err(TensorError::new(
                Rule::AxisOutOfRange,
                format!("axis {axis} of a rank-{} tensor", self.rank()),
            ));
        }
        let mut v: Vec<u64> = self.extents().to_vec();
        v.remove(axis);
        Dims::new(&v)
    }
}

impl fmt::Display for Dims {
    /// `[2,3]`; a scalar is `[]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, e) in self.extents().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dims{self}")
    }
}
