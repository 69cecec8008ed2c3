//! CuTe's `Swizzle<B,M,S>`: the XOR bit-swizzle that spreads the rows of a shared-memory
//! tile across banks. `B` bits starting at bit `M + max(0,S)` (the "YYY" mask) are XORed
//! into the `B` bits starting at bit `M - min(0,S)` (the "ZZZ" mask); the `M` lowest bits
//! are never touched, so vectors of `2^M` elements stay contiguous.
//!
//! ```
//! use strideweave::Swizzle;
//! let sw = Swizzle::new(3, 4, 3).unwrap();          // Sw<3,4,3>
//! assert_eq!(sw.to_string(), "Sw<3,4,3>");
//! assert_eq!((sw.yyy_mask(), sw.zzz_mask()), (0b111_0000000, 0b111_0000));
//! assert_eq!(sw.apply(0b101_0000000), 0b101_0000000 ^ 0b101_0000);
//! assert_eq!(sw.apply(sw.apply(1234)), 1234);      // an involution
//! ```

use crate::error::LayoutError;
use std::fmt;

/// `Swizzle<B,M,S>`: `offset ^ ((offset & YYY) >> S)` (a negative `S` shifts left).
///
/// `bits` is CuTe's `BBits`, `base` its `MBase`, `shift` its `SShift`. Valid when
/// `|shift| >= bits` (the two masks do not overlap) and both masks fit in 64 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

impl Swizzle {
    /// The identity swizzle CuTe reports for a layout with none: `Sw<0,4,3>`.
    pub const IDENTITY: Swizzle = Swizzle {
        bits: 0,
        base: 4,
        shift: 3,
    };

    /// `Sw<bits,base,shift>`, or `None` when `|shift| < bits` or the masks pass bit 63.
    /// `const`, for swizzles known at compile time (see `strideweave::static_layout::StaticSwizzle`).
    pub const fn checked(bits: u32, base: u32, shift: i32) -> Option<Swizzle> {
        let abs = shift.unsigned_abs();
        if abs < bits {
            return None;
        }
        // the highest mask ends at bit base + |shift| + bits - 1
        match base.checked_add(abs) {
            Some(v) => match v.checked_add(bits) {
                Some(top) if top <= 64 => Some(Swizzle { bits, base, shift }),
                _ => None,
            },
            None => None,
        }
    }

    /// `Sw<bits,base,shift>`, or a value error naming the rule it breaks.
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// assert!(Swizzle::new(2, 0, -3).is_ok());
    /// assert_eq!(
    ///     Swizzle::new(3, 4, 2).unwrap_err().message(),
    ///     "swizzle Sw<3,4,2>: |S| = 2 is smaller than B = 3, so the masks would overlap"
    /// );
    /// ```
    pub fn new(bits: u32, base: u32, shift: i32) -> Result<Swizzle, LayoutError> {
        Swizzle::checked(bits, base, shift).ok_or_else(|| {
            let name = format!("Sw<{bits},{base},{shift}>");
            if shift.unsigned_abs() < bits {
                LayoutError::value(format!(
                    "swizzle {name}: |S| = {} is smaller than B = {bits}, so the masks would overlap",
                    shift.unsigned_abs()
                ))
            } else {
                LayoutError::value(format!(
                    "swizzle {name}: M + |S| + B = {} is more than the 64 bits of an index",
                    bits as u64 + base as u64 + shift.unsigned_abs() as u64
                ))
            }
        })
    }

    /// `B`: how many bits are XORed.
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// `M`: how many low bits stay fixed.
    pub const fn base(&self) -> u32 {
        self.base
    }

    /// `S`: the distance from the YYY bits down to the ZZZ bits (negative: up).
    pub const fn shift(&self) -> i32 {
        self.shift
    }

    /// Whether this swizzle changes nothing (`B == 0`).
    pub const fn is_identity(&self) -> bool {
        self.bits == 0
    }

    const fn bit_mask(&self) -> u64 {
        if self.bits == 0 {
            0
        } else {
            u64::MAX >> (64 - self.bits)
        }
    }

    /// The YYY mask: the bits that are read (and kept).
    pub const fn yyy_mask(&self) -> u64 {
        let up = if self.shift > 0 { self.shift as u32 } else { 0 };
        self.bit_mask() << ((self.base + up) % 64)
    }

    /// The ZZZ mask: the bits that are flipped by the YYY bits.
    pub const fn zzz_mask(&self) -> u64 {
        let down = if self.shift < 0 {
            self.shift.unsigned_abs()
        } else {
            0
        };
        self.bit_mask() << ((self.base + down) % 64)
    }

    /// CuTe's `swizzle_code`: `YYY | ZZZ`, every bit the swizzle reads or writes.
    pub const fn code(&self) -> u64 {
        self.yyy_mask() | self.zzz_mask()
    }

    /// The swizzled offset: `offset ^ shiftr(offset & YYY, S)`. Its own inverse.
    #[inline(always)]
    pub const fn apply(&self, offset: u64) -> u64 {
        let y = offset & self.yyy_mask();
        let moved = if self.shift >= 0 {
            y >> (self.shift as u32 % 64)
        } else {
            y << (self.shift.unsigned_abs() % 64)
        };
        offset ^ moved
    }

    /// CuTe's `make_swizzle<Y, Z>()`: the swizzle whose YYY mask is `yyy` and ZZZ mask
    /// `zzz`, if one exists (equal popcounts, each a contiguous run, not overlapping).
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// assert_eq!(Swizzle::from_masks(0b1000, 0b0100).unwrap().to_string(), "Sw<1,2,1>");
    /// assert_eq!(Swizzle::from_masks(0b1100_0000, 0b0000_0110).unwrap().to_string(), "Sw<2,1,5>");
    /// assert!(Swizzle::from_masks(0b1010, 0b0001).is_none());
    /// ```
    pub const fn from_masks(yyy: u64, zzz: u64) -> Option<Swizzle> {
        let bits = yyy.count_ones();
        if zzz.count_ones() != bits {
            return None;
        }
        if bits == 0 {
            return Some(Swizzle {
                bits: 0,
                base: 0,
                shift: 0,
            });
        }
        let ty = yyy.trailing_zeros();
        let tz = zzz.trailing_zeros();
        let base = if ty < tz { ty } else { tz };
        let sw = match Swizzle::checked(bits, base, ty as i32 - tz as i32) {
            Some(s) => s,
            None => return None,
        };
        if sw.yyy_mask() == yyy && sw.zzz_mask() == zzz {
            Some(sw)
        } else {
            None
        }
    }

    /// CuTe's `composition(Swizzle, Swizzle)` for two swizzles of the same shift: the one
    /// swizzle whose masks are the XOR of theirs, if it exists.
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// let a = Swizzle::new(1, 4, 3).unwrap();
    /// let b = Swizzle::new(1, 5, 3).unwrap();
    /// let ab = a.compose_swizzle(&b).unwrap();
    /// assert_eq!(ab.to_string(), "Sw<2,4,3>");
    /// assert!((0..1024).all(|i| ab.apply(i) == a.apply(b.apply(i))));
    /// ```
    pub fn compose_swizzle(&self, other: &Swizzle) -> Result<Swizzle, LayoutError> {
        if self.is_identity() {
            return Ok(*other);
        }
        if other.is_identity() {
            return Ok(*self);
        }
        if self.shift != other.shift {
            return Err(LayoutError::value(format!(
                "compose({self}, {other}): only swizzles of the same shift merge into one swizzle"
            )));
        }
        Swizzle::from_masks(
            self.yyy_mask() ^ other.yyy_mask(),
            self.zzz_mask() ^ other.zzz_mask(),
        )
        .ok_or_else(|| {
            LayoutError::value(format!(
                "compose({self}, {other}): the XOR of their masks is not one swizzle's"
            ))
        })
    }

    /// CuTe's `upcast<N>`: the swizzle on elements `n` times wider (`n` a power of two),
    /// `Sw<B, M - log2 n, S>`, with the bits below one element dropped when `M` runs out.
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// assert_eq!(Swizzle::new(3, 4, 3).unwrap().upcast(2).unwrap().to_string(), "Sw<3,3,3>");
    /// assert_eq!(Swizzle::new(3, 1, 3).unwrap().upcast(8).unwrap().to_string(), "Sw<1,0,3>");
    /// ```
    pub fn upcast(&self, n: u64) -> Result<Swizzle, LayoutError> {
        let log = Self::log2(n, "upcast")?;
        let m = self.base as i64 - log as i64;
        if m >= 0 {
            Swizzle::new(self.bits, m as u32, self.shift)
        } else {
            Swizzle::new((self.bits as i64 + m).max(0) as u32, 0, self.shift)
        }
    }

    /// CuTe's `downcast<N>`: the swizzle on elements `n` times narrower, `Sw<B, M + log2 n, S>`.
    ///
    /// ```
    /// use strideweave::Swizzle;
    /// assert_eq!(Swizzle::new(3, 3, 3).unwrap().downcast(2).unwrap().to_string(), "Sw<3,4,3>");
    /// ```
    pub fn downcast(&self, n: u64) -> Result<Swizzle, LayoutError> {
        let log = Self::log2(n, "downcast")?;
        Swizzle::new(self.bits, self.base + log, self.shift)
    }

    fn log2(n: u64, op: &str) -> Result<u32, LayoutError> {
        if n == 0 || !n.is_power_of_two() {
            return Err(LayoutError::value(format!(
                "{op} of a swizzle by {n}: the factor must be a power of two"
            )));
        }
        Ok(n.trailing_zeros())
    }
}

impl fmt::Display for Swizzle {
    /// CuTe's spelling: `Sw<B,M,S>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

impl std::str::FromStr for Swizzle {
    type Err = LayoutError;
    /// Parses `Sw<B,M,S>` (spaces allowed, `S` may be negative).
    fn from_str(s: &str) -> Result<Swizzle, LayoutError> {
        let mut p = crate::notation::Parser::new(s);
        let sw = crate::notation::swizzle(&mut p)?;
        p.finish()?;
        Ok(sw)
    }
}

/// `docs/swizzles.md`, its examples compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/swizzles.md")]
struct SwizzlesDoc;

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks of CuTe's ASCII picture: `0bxxxYYYxxxxxxxZZZxxxx`.
    #[test]
    fn masks_match_cute_definition() {
        let sw = Swizzle::new(2, 3, -5).unwrap();
        assert_eq!(sw.yyy_mask(), 0b11 << 3);
        assert_eq!(sw.zzz_mask(), 0b11 << 8);
        assert_eq!(sw.apply(0b11 << 3), (0b11 << 3) | (0b11 << 8));
        assert_eq!(
            Swizzle::checked(3, 30, 31),
            Some(Swizzle {
                bits: 3,
                base: 30,
                shift: 31
            })
        );
        assert_eq!(Swizzle::checked(3, 31, 31), None);
        assert!(Swizzle::new(1, 63, 1).is_err());
    }

    #[test]
    fn identity_changes_nothing() {
        for sw in [Swizzle::IDENTITY, Swizzle::new(0, 0, 0).unwrap()] {
            assert!((0..4096).all(|i| sw.apply(i) == i));
        }
    }
}
