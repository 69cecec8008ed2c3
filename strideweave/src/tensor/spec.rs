//! `TensorSpec` = dims + dtype + placement, and its text form.

use std::fmt;
use std::str::FromStr;

use super::dims::Dims;
use super::dtype::DType;
use super::error::{Rule, TensorError};
use super::placement::{Geometry, MlaCBlocked, MlaTiled, Placement, Roles, Strides};

/// A logical tensor (dims, dtype) and how it lies in bytes (placement).
///
/// Text form: `DTYPE[D0,D1,...] PLACEMENT`, e.g.
/// `bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)`.
///
/// ```
/// use strideweave::tensor::TensorSpec;
/// let s: TensorSpec = "f32[2,3] strided(16,4)".parse().unwrap();
/// assert_eq!(s.required_bytes().unwrap(), 28);
/// assert_eq!(s.byte_offset(&[1, 2], 0).unwrap(), 24);
/// assert_eq!(s.to_string().parse::<TensorSpec>().unwrap(), s);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TensorSpec {
    /// Logical extents.
    pub dims: Dims,
    /// Scalar type.
    pub dtype: DType,
    /// Physical placement.
    pub placement: Placement,
}

impl TensorSpec {
    /// A spec after checking the placement's structure against the dims.
    pub fn new(dims: Dims, dtype: DType, placement: Placement) -> Result<TensorSpec, TensorError> {
        placement.check(&dims)?;
        Ok(TensorSpec {
            dims,
            dtype,
            placement,
        })
    }

    /// A contiguous spec.
    ///
    /// ```
    /// use strideweave::tensor::{DType, TensorSpec};
    /// let s = TensorSpec::contiguous(&[2, 3], DType::BF16).unwrap();
    /// assert_eq!(s.required_bytes().unwrap(), 12);
    /// ```
    pub fn contiguous(extents: &[u64], dtype: DType) -> Result<TensorSpec, TensorError> {
        TensorSpec::new(Dims::new(extents)?, dtype, Placement::Contiguous)
    }

    pub(crate) fn geometry(&self) -> Result<Geometry, TensorError> {
        Geometry::new(&self.dims, self.dtype, &self.placement)
    }

    /// Bytes the placement spans (its cosize): zero for an empty tensor, checked arithmetic.
    pub fn required_bytes(&self) -> Result<u64, TensorError> {
        Ok(self.geometry()?.span())
    }

    /// The placement's byte-level [`Layout`](crate::Layout), built with the layout
    /// algebra: coordinate `(byte, x0, x1, ...)` (one integer per mode; a tiled axis
    /// decomposes into position-in-tile and tile number) to byte offset. `None` for an
    /// empty tensor. For contiguous and strided placements `cosize` is the required span.
    ///
    /// ```
    /// use strideweave::tensor::TensorSpec;
    /// let s: TensorSpec = "f32[2,3] strided(16,4)".parse().unwrap();
    /// let l = s.byte_layout().unwrap().unwrap();
    /// assert_eq!(l.to_string(), "((4),(2),(3)):((1),(16),(4))");
    /// assert_eq!(l.cosize(), 28);
    /// ```
    pub fn byte_layout(&self) -> Result<Option<crate::Layout>, TensorError> {
        self.geometry()?.byte_layout(&self.dims, self.dtype.width())
    }

    /// Byte offset of byte `byte` (0 = least significant) of the element at `coord`,
    /// evaluated through [`TensorSpec::byte_layout`].
    pub fn byte_offset(&self, coord: &[u64], byte: u64) -> Result<u64, TensorError> {
        let g = self.geometry()?;
        if coord.len() != self.dims.rank() {
            return Err(TensorError::new(
                Rule::OutOfRange,
                format!(
                    "coordinate of rank {} for a rank-{} tensor",
                    coord.len(),
                    self.dims.rank()
                ),
            ));
        }
        for (ax, (&c, &e)) in coord.iter().zip(self.dims.extents()).enumerate() {
            if c >= e {
                return Err(TensorError::new(
                    Rule::OutOfRange,
                    format!("coordinate {c} on axis {ax} of extent {e}"),
                ));
            }
        }
        if byte >= self.dtype.width() {
            return Err(TensorError::new(
                Rule::OutOfRange,
                format!("byte {byte} of a {}-byte element", self.dtype.width()),
            ));
        }
        let layout = g
            .byte_layout(&self.dims, self.dtype.width())?
            .ok_or_else(|| TensorError::new(Rule::OutOfRange, "an empty tensor has no elements"))?;
        let mut c = Vec::with_capacity(coord.len() + 1);
        c.push(byte);
        c.extend_from_slice(coord);
        let err = |e: crate::LayoutError| TensorError::new(Rule::OutOfRange, e.to_string());
        layout
            .index(&crate::Coord::new(c).map_err(err)?)
            .map_err(err)
    }

    /// The same offset as [`TensorSpec::byte_offset`] by the kernels' direct formula
    /// (kept to prove both agree).
    #[doc(hidden)]
    pub fn byte_offset_formula(&self, coord: &[u64], byte: u64) -> Result<u64, TensorError> {
        self.byte_offset(coord, byte)?;
        Ok(self.geometry()?.byte_offset(&self.dims, coord, byte))
    }
}

impl fmt::Display for TensorSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{} ", self.dtype, self.dims)?;
        match &self.placement {
            Placement::Contiguous => f.write_str("contiguous"),
            Placement::Strided(s) => {
                f.write_str("strided(")?;
                for (i, x) in s.as_slice().iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
            Placement::MlaTiled(t) => write!(
                f,
                "mla-tiled(roles={}, tile=({},{},{},{}), align={})",
                t.roles, t.tile[0], t.tile[1], t.tile[2], t.tile[3], t.tile_align
            ),
            Placement::MlaCBlocked(c) => write!(
                f,
                "mla-cblocked(tile=({},{}), align={})",
                c.tile_h, c.tile_w, c.tile_align
            ),
        }
    }
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

/// Most entries a bracketed list of a spec may have before parsing stops (ranks are at
/// most six; the bound only keeps a hostile spec from growing a list without end).
const MAX_LIST_ITEMS: usize = 64;

fn syntax(msg: impl Into<String>) -> TensorError {
    TensorError::new(Rule::Syntax, msg)
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }
    fn eat(&mut self, tok: &str) -> bool {
        self.ws();
        if self.rest().starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, tok: &str) -> Result<(), TensorError> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(syntax(format!(
                "expected `{tok}` at byte {} of `{}`",
                self.pos, self.s
            )))
        }
    }
    fn word(&mut self) -> &'a str {
        self.ws();
        let r = self.rest();
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'))
            .unwrap_or(r.len());
        self.pos += n;
        &r[..n]
    }
    /// A plain decimal integer, `-` allowed before a non-zero value (negative extents and
    /// strides are the admission rules' to reject); `+2`, `-0` and `0x10` are syntax errors.
    fn int(&mut self) -> Result<i128, TensorError> {
        self.ws();
        let r = self.rest();
        let b = r.as_bytes();
        let negative = b.first() == Some(&b'-');
        let digits_start = usize::from(negative);
        let mut n = digits_start;
        while n < b.len() && b[n].is_ascii_digit() {
            n += 1;
        }
        let digits = &r[digits_start..n];
        if digits.is_empty() || (negative && digits.bytes().all(|d| d == b'0')) {
            return Err(syntax(format!(
                "expected a plain decimal integer at byte {} of `{}`",
                self.pos, self.s
            )));
        }
        let text = &r[..n];
        self.pos += n;
        text.parse::<i128>().map_err(|_| {
            TensorError::new(
                Rule::Overflow,
                format!("integer `{text}` does not fit in 64 bits"),
            )
        })
    }
    fn u64(&mut self, what: &str) -> Result<u64, TensorError> {
        let v = self.int()?;
        if v < 0 {
            let rule = if what == "extent" {
                Rule::NegativeExtent
            } else {
                Rule::Syntax
            };
            return Err(TensorError::new(rule, format!("{what} {v} is negative")));
        }
        u64::try_from(v).map_err(|_| {
            TensorError::new(
                Rule::Overflow,
                format!("{what} {v} does not fit in 64 bits"),
            )
        })
    }
    fn i64(&mut self, what: &str) -> Result<i64, TensorError> {
        let v = self.int()?;
        i64::try_from(v).map_err(|_| {
            TensorError::new(
                Rule::Overflow,
                format!("{what} {v} does not fit in a signed 64-bit integer"),
            )
        })
    }
    /// `open item (, item)* close`, possibly empty.
    fn list<T>(
        &mut self,
        open: &str,
        close: &str,
        mut item: impl FnMut(&mut Self) -> Result<T, TensorError>,
    ) -> Result<Vec<T>, TensorError> {
        self.expect(open)?;
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            // far beyond any valid rank or tile: stop before a hostile list grows
            if v.len() == MAX_LIST_ITEMS {
                return Err(syntax(format!(
                    "more than {MAX_LIST_ITEMS} entries in a list at byte {} of `{}`",
                    self.pos, self.s
                )));
            }
            v.push(item(self)?);
            if self.eat(close) {
                return Ok(v);
            }
            if !self.eat(",") {
                return Err(syntax(format!(
                    "expected `,` or `{close}` at byte {} of `{}`",
                    self.pos, self.s
                )));
            }
        }
    }
}

impl FromStr for TensorSpec {
    type Err = TensorError;

    fn from_str(s: &str) -> Result<TensorSpec, TensorError> {
        let mut c = Cursor { s, pos: 0 };
        c.ws();
        let r = c.rest();
        let n = r
            .find('[')
            .ok_or_else(|| syntax(format!("expected `DTYPE[D0,...]` in `{s}`")))?;
        let dtype: DType = r[..n].parse()?;
        c.pos += n;
        let dims = c.list("[", "]", |c| c.u64("extent"))?;
        let dims = Dims::new(&dims)?;
        let kind = c.word();
        let placement = match kind {
            "" | "contiguous" => Placement::Contiguous,
            "strided" => {
                let v = c.list("(", ")", |c| c.i64("stride"))?;
                Placement::Strided(Strides::new(&v)?)
            }
            "mla-tiled" => {
                c.expect("(")?;
                c.expect("roles")?;
                c.expect("=")?;
                let roles: Roles = c.word().parse()?;
                c.expect(",")?;
                c.expect("tile")?;
                c.expect("=")?;
                let t = c.list("(", ")", |c| c.u64("tile entry"))?;
                let tile: [u64; 4] = t.as_slice().try_into().map_err(|_| {
                    syntax(format!("mla-tiled tile needs 4 entries (TD,TH,TW,TC), got {}", t.len()))
                })?;
                c.expect(",")?;
                c.expect("align")?;
                c.expect("=")?;
                let tile_align = c.u64("align")?;
                c.expect(")")?;
                Placement::MlaTiled(MlaTiled {
                    roles,
                    tile,
                    tile_align,
                })
            }
            "mla-cblocked" => {
                c.expect("(")?;
                c.expect("tile")?;
                c.expect("=")?;
                let t = c.list("(", ")", |c| c.u64("tile entry"))?;
                let [tile_h, tile_w]: [u64; 2] = t.as_slice().try_into().map_err(|_| {
                    syntax(format!("mla-cblocked tile needs 2 entries (TH,TW), got {}", t.len()))
                })?;
                c.expect(",")?;
                c.expect("align")?;
                c.expect("=")?;
                let tile_align = c.u64("align")?;
                c.expect(")")?;
                Placement::MlaCBlocked(MlaCBlocked {
                    tile_h,
                    tile_w,
                    tile_align,
                })
            }
            other => {
                return Err(syntax(format!(
                    "unknown placement `{other}` (expected contiguous, strided, mla-tiled or mla-cblocked)"
                )))
            }
        };
        c.ws();
        if !c.rest().is_empty() {
            return Err(syntax(format!(
                "unexpected `{}` after the spec in `{s}`",
                c.rest()
            )));
        }
        TensorSpec::new(dims, dtype, placement)
    }
}
