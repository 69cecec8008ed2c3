//! Placements: how a logical tensor lies in bytes, and the byte-level address map
//! (logical coordinate + byte within the element -> byte offset) each one defines.

use super::dims::{Dims, MAX_RANK};
use super::dtype::DType;
use super::error::{add, mul, round_up, Rule, TensorError};

/// A role of a logical axis inside an MlaTiled placement.
///
/// ```
/// use strideweave::tensor::Role;
/// assert_eq!(Role::Channel.letter(), 'C');
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Depth (`D` in the text form).
    Depth,
    /// Height (`H`).
    Height,
    /// Width (`W`).
    Width,
    /// Channel (`C`). The variants have full names: a one-letter `C` would make rustc
    /// spell the static leaf type `C<N>` with its full path in compile errors.
    Channel,
}

impl Role {
    /// All roles in D/H/W/C order (the order of the `tile` tuple).
    pub const ALL: [Role; 4] = [Role::Depth, Role::Height, Role::Width, Role::Channel];

    /// Position in the `tile` tuple: D=0, H=1, W=2, C=3.
    pub fn index(self) -> usize {
        match self {
            Role::Depth => 0,
            Role::Height => 1,
            Role::Width => 2,
            Role::Channel => 3,
        }
    }

    /// The letter used in the text form.
    pub fn letter(self) -> char {
        ['D', 'H', 'W', 'C'][self.index()]
    }
}

/// One optional role per logical axis (`None` = outer axis), e.g. `.HWC`.
///
/// ```
/// use strideweave::tensor::{Role, Roles};
/// let r: Roles = ".HWC".parse().unwrap();
/// assert_eq!(r.axis_of(Role::Height), Some(1));
/// assert_eq!(r.axis_of(Role::Depth), None);
/// assert_eq!(r.to_string(), ".HWC");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Roles {
    len: u8,
    roles: [Option<Role>; MAX_RANK],
}

impl Roles {
    /// Roles from one entry per axis; more than six entries is [`Rule::TooManyDims`].
    pub fn new(roles: &[Option<Role>]) -> Result<Roles, TensorError> {
        if roles.len() > MAX_RANK {
            return Err(TensorError::new(
                Rule::TooManyDims,
                format!("roles name {} axes, at most {MAX_RANK}", roles.len()),
            ));
        }
        let mut r = [None; MAX_RANK];
        r[..roles.len()].copy_from_slice(roles);
        Ok(Roles {
            len: roles.len() as u8,
            roles: r,
        })
    }

    /// The entries, one per axis.
    pub fn as_slice(&self) -> &[Option<Role>] {
        &self.roles[..self.len as usize]
    }

    /// The logical axis mapped to `role`, if any (first one).
    pub fn axis_of(&self, role: Role) -> Option<usize> {
        self.as_slice().iter().position(|r| *r == Some(role))
    }
}

impl std::str::FromStr for Roles {
    type Err = TensorError;
    fn from_str(s: &str) -> Result<Roles, TensorError> {
        let mut v = Vec::new();
        for ch in s.trim().chars() {
            v.push(match ch {
                'D' => Some(Role::Depth),
                'H' => Some(Role::Height),
                'W' => Some(Role::Width),
                'C' => Some(Role::Channel),
                '.' => None,
                other => {
                    return Err(TensorError::new(
                        Rule::Syntax,
                        format!("role `{other}` is not one of D, H, W, C, ."),
                    ))
                }
            });
        }
        Roles::new(&v)
    }
}

impl std::fmt::Display for Roles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in self.as_slice() {
            let c = r.map_or('.', Role::letter);
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Signed byte strides, one per logical axis.
///
/// ```
/// use strideweave::tensor::Strides;
/// let s = Strides::new(&[16, 4]).unwrap();
/// assert_eq!(s.as_slice(), &[16, 4]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Strides {
    len: u8,
    s: [i64; MAX_RANK],
}

impl Strides {
    /// Strides from a list; more than six is [`Rule::TooManyDims`].
    pub fn new(strides: &[i64]) -> Result<Strides, TensorError> {
        if strides.len() > MAX_RANK {
            return Err(TensorError::new(
                Rule::TooManyDims,
                format!("{} strides given, at most {MAX_RANK}", strides.len()),
            ));
        }
        let mut s = [0; MAX_RANK];
        s[..strides.len()].copy_from_slice(strides);
        Ok(Strides {
            len: strides.len() as u8,
            s,
        })
    }

    /// The strides, one per axis, in bytes.
    pub fn as_slice(&self) -> &[i64] {
        &self.s[..self.len as usize]
    }
}

/// The MLA tiled placement: D/H/W/C roles, a `(TD,TH,TW,TC)` tile and a per-tile alignment.
///
/// ```
/// use strideweave::tensor::{MlaTiled, TensorSpec};
/// let spec: TensorSpec = "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)"
///     .parse().unwrap();
/// // 2x2 spatial tiles x 2 channel tiles; 256 pixels-channels x 2 bytes = 512 bytes each.
/// assert_eq!(spec.required_bytes().unwrap(), 8 * 512);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MlaTiled {
    /// One optional role per logical axis.
    pub roles: Roles,
    /// Tile extents in D/H/W/C order.
    pub tile: [u64; 4],
    /// Tile bytes are rounded up to this power of two.
    pub tile_align: u64,
}

/// The MLA channel-blocked placement: trailing H/W/C, 16-lane channel blocks.
///
/// ```
/// use strideweave::tensor::TensorSpec;
/// let spec: TensorSpec = "bf16[3,3,20] mla-cblocked(tile=(2,2), align=128)".parse().unwrap();
/// // 4 tiles, each 2 channel blocks x 4 pixels x 16 lanes x 2 bytes = 256 bytes.
/// assert_eq!(spec.required_bytes().unwrap(), 4 * 256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MlaCBlocked {
    /// Tile height in pixels.
    pub tile_h: u64,
    /// Tile width in pixels.
    pub tile_w: u64,
    /// Tile bytes are rounded up to this power of two.
    pub tile_align: u64,
}

/// Number of channel lanes in one MlaCBlocked channel block.
pub const CBLOCK_LANES: u64 = 16;

/// How a logical tensor lies in bytes.
///
/// ```
/// use strideweave::tensor::{Placement, Strides};
/// let p = Placement::Strided(Strides::new(&[16, 4]).unwrap());
/// assert!(!p.is_tiled());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Placement {
    /// Dense, last axis fastest.
    #[default]
    Contiguous,
    /// One signed byte stride per logical axis.
    Strided(Strides),
    /// MLA tiled.
    MlaTiled(MlaTiled),
    /// MLA channel-blocked.
    MlaCBlocked(MlaCBlocked),
}

impl Placement {
    /// True for MlaTiled and MlaCBlocked.
    pub fn is_tiled(&self) -> bool {
        matches!(self, Placement::MlaTiled(_) | Placement::MlaCBlocked(_))
    }

    /// Short name used in messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Placement::Contiguous => "contiguous",
            Placement::Strided(_) => "strided",
            Placement::MlaTiled(_) => "mla-tiled",
            Placement::MlaCBlocked(_) => "mla-cblocked",
        }
    }

    /// Checks the placement's own structure against `dims` (stride count, roles,
    /// tiles, alignment, rank). Operation admission adds its own rules on top.
    pub fn check(&self, dims: &Dims) -> Result<(), TensorError> {
        match self {
            Placement::Contiguous => Ok(()),
            Placement::Strided(s) => {
                if s.as_slice().len() != dims.rank() {
                    return Err(TensorError::new(
                        Rule::StrideCount,
                        format!(
                            "{} strides for a rank-{} tensor",
                            s.as_slice().len(),
                            dims.rank()
                        ),
                    ));
                }
                Ok(())
            }
            Placement::MlaTiled(t) => {
                let roles = t.roles.as_slice();
                if roles.len() != dims.rank() {
                    return Err(TensorError::new(
                        Rule::RolesLength,
                        format!(
                            "roles `{}` name {} axes, the tensor has rank {}",
                            t.roles,
                            roles.len(),
                            dims.rank()
                        ),
                    ));
                }
                for role in Role::ALL {
                    let n = roles.iter().filter(|r| **r == Some(role)).count();
                    if n > 1 {
                        return Err(TensorError::new(
                            Rule::RoleTwice,
                            format!("role {} is used {n} times in `{}`", role.letter(), t.roles),
                        ));
                    }
                }
                if roles.iter().all(Option::is_none) {
                    return Err(TensorError::new(
                        Rule::NoRole,
                        format!("roles `{}` map no axis to D, H, W or C", t.roles),
                    ));
                }
                for role in Role::ALL {
                    let te = t.tile[role.index()];
                    if te == 0 {
                        return Err(TensorError::new(
                            Rule::ZeroTile,
                            format!("tile entry {} is 0", role.letter()),
                        ));
                    }
                    if t.roles.axis_of(role).is_none() && te != 1 {
                        return Err(TensorError::new(
                            Rule::AbsentRoleTile,
                            format!(
                                "role {} is absent, so its tile entry must be 1, not {te}",
                                role.letter()
                            ),
                        ));
                    }
                }
                check_align(t.tile_align)
            }
            Placement::MlaCBlocked(c) => {
                if dims.rank() < 3 {
                    return Err(TensorError::new(
                        Rule::RankBelowThree,
                        format!(
                            "mla-cblocked needs rank >= 3 (H, W, C), the tensor has rank {}",
                            dims.rank()
                        ),
                    ));
                }
                if c.tile_h == 0 || c.tile_w == 0 {
                    return Err(TensorError::new(
                        Rule::ZeroTile,
                        format!("tile ({},{}) has a zero entry", c.tile_h, c.tile_w),
                    ));
                }
                check_align(c.tile_align)
            }
        }
    }
}

fn check_align(a: u64) -> Result<(), TensorError> {
    if a.is_power_of_two() {
        Ok(())
    } else {
        Err(TensorError::new(
            Rule::AlignNotPowerOfTwo,
            format!("align {a} is not a power of two"),
        ))
    }
}

fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b)
}

/// A strided byte map (contiguous placements become one): offset = sum(coord * stride) + byte.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StridedGeom {
    pub rank: usize,
    pub ext: [u64; MAX_RANK],
    pub stride: [u64; MAX_RANK],
    pub span: u64,
}

/// The MlaTiled byte map.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TiledGeom {
    pub width: u64,
    /// BF16 stores byte planes inside each pixel.
    pub planes: bool,
    /// Logical axis of D, H, W, C.
    pub role_axis: [Option<usize>; 4],
    /// Extents of D, H, W, C (1 when absent).
    pub ext: [u64; 4],
    pub tile: [u64; 4],
    /// Tile counts along D, H, W, C.
    pub ntiles: [u64; 4],
    pub outer_axes: [usize; MAX_RANK],
    pub n_outer_axes: usize,
    pub n_outer: u64,
    /// Unrounded tile bytes.
    pub tile_raw: u64,
    /// Tile bytes rounded up to the alignment.
    pub tile_bytes: u64,
    pub span: u64,
}

/// The MlaCBlocked byte map.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CBlockedGeom {
    pub width: u64,
    pub planes: bool,
    pub rank: usize,
    /// H, W, C extents.
    pub h: u64,
    pub w: u64,
    pub c: u64,
    pub tile_h: u64,
    pub tile_w: u64,
    pub n_cb: u64,
    pub n_th: u64,
    pub n_tw: u64,
    pub n_outer: u64,
    pub tile_raw: u64,
    pub tile_bytes: u64,
    pub span: u64,
}

/// The byte-level address map of a (dims, dtype, placement) triple.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Geometry {
    Strided(StridedGeom),
    Tiled(TiledGeom),
    CBlocked(CBlockedGeom),
}

/// The address map of a placement: logical coordinate and byte within the element
/// to byte offset, plus the required span. Callers guarantee `coord` lies inside
/// the dims and `byte < width`; offsets are then below `span`, so they cannot overflow.
pub(crate) trait AddressMap {
    fn byte_offset(&self, coord: &[u64], byte: u64) -> u64;
}

impl StridedGeom {
    /// Contiguous: strides of a dense row-major layout.
    pub fn contiguous(dims: &Dims, width: u64) -> Result<StridedGeom, TensorError> {
        let rank = dims.rank();
        let mut ext = [0u64; MAX_RANK];
        ext[..rank].copy_from_slice(dims.extents());
        let mut stride = [0u64; MAX_RANK];
        let span = mul(dims.element_count()?, width, "required bytes")?;
        if span > 0 {
            let mut acc = width;
            for ax in (0..rank).rev() {
                stride[ax] = acc;
                // Cannot overflow: the product of all extents times width fits (checked above).
                acc = acc.saturating_mul(ext[ax]);
            }
        }
        Ok(StridedGeom {
            rank,
            ext,
            stride,
            span,
        })
    }

    /// Strided with non-negative byte strides; span = width + sum((e-1)*s), 0 if empty.
    pub fn strided(dims: &Dims, strides: &Strides, width: u64) -> Result<StridedGeom, TensorError> {
        let rank = dims.rank();
        let mut ext = [0u64; MAX_RANK];
        ext[..rank].copy_from_slice(dims.extents());
        let mut stride = [0u64; MAX_RANK];
        for (ax, &s) in strides.as_slice().iter().enumerate() {
            stride[ax] = u64::try_from(s).map_err(|_| {
                TensorError::new(
                    Rule::NegativeStride,
                    format!("stride {s} of axis {ax} is negative"),
                )
            })?;
        }
        let span = if dims.is_empty() {
            0
        } else {
            let mut span = width;
            for ax in 0..rank {
                let t = mul(ext[ax] - 1, stride[ax], "span")?;
                span = add(span, t, "span")?;
            }
            span
        };
        Ok(StridedGeom {
            rank,
            ext,
            stride,
            span,
        })
    }
}

impl AddressMap for StridedGeom {
    fn byte_offset(&self, coord: &[u64], byte: u64) -> u64 {
        coord[..self.rank]
            .iter()
            .zip(&self.stride)
            .fold(byte, |off, (c, s)| off + c * s)
    }
}

impl TiledGeom {
    pub fn new(dims: &Dims, t: &MlaTiled, dtype: DType) -> Result<TiledGeom, TensorError> {
        let width = dtype.width();
        let mut role_axis = [None; 4];
        let mut ext = [1u64; 4];
        for role in Role::ALL {
            if let Some(ax) = t.roles.axis_of(role) {
                role_axis[role.index()] = Some(ax);
                ext[role.index()] = dims.extents()[ax];
            }
        }
        let mut outer_axes = [0usize; MAX_RANK];
        let mut n_outer_axes = 0;
        let mut n_outer = 1u64;
        for (ax, r) in t.roles.as_slice().iter().enumerate() {
            if r.is_none() {
                outer_axes[n_outer_axes] = ax;
                n_outer_axes += 1;
                n_outer = mul(n_outer, dims.extents()[ax], "outer tile count")?;
            }
        }
        let mut ntiles = [0u64; 4];
        for i in 0..4 {
            ntiles[i] = ceil_div(ext[i], t.tile[i]);
        }
        let tile_elems = t
            .tile
            .iter()
            .try_fold(1u64, |a, &x| mul(a, x, "tile element count"))?;
        let tile_raw = mul(tile_elems, width, "tile bytes")?;
        let tile_bytes = round_up(tile_raw, t.tile_align, "aligned tile bytes")?;
        let span = if dims.is_empty() {
            0
        } else {
            let n = ntiles
                .iter()
                .try_fold(n_outer, |a, &x| mul(a, x, "tile count"))?;
            mul(n, tile_bytes, "required bytes")?
        };
        Ok(TiledGeom {
            width,
            planes: dtype == DType::BF16,
            role_axis,
            ext,
            tile: t.tile,
            ntiles,
            outer_axes,
            n_outer_axes,
            n_outer,
            tile_raw,
            tile_bytes,
            span,
        })
    }

    /// Row-major index over the outer axes (last one fastest).
    pub fn outer_index(&self, coord: &[u64], ext: &[u64]) -> u64 {
        let mut o = 0u64;
        for &ax in &self.outer_axes[..self.n_outer_axes] {
            o = o * ext[ax] + coord[ax];
        }
        o
    }

    /// Byte offset of the pixel base and channel slot for D/H/W/C coordinates.
    pub fn offset_dhwc(&self, outer: u64, x: [u64; 4], byte: u64) -> u64 {
        let [td, th, tw, tc] = self.tile;
        let [nd, nh, nw, _] = self.ntiles;
        let tile_no = (((outer * self.ntiles[3] + x[3] / tc) * nd + x[0] / td) * nh + x[1] / th)
            * nw
            + x[2] / tw;
        let pixel = ((x[0] % td) * th + x[1] % th) * tw + x[2] % tw;
        let base = tile_no * self.tile_bytes + pixel * tc * self.width;
        let cc = x[3] % tc;
        if self.planes {
            base + byte * tc + cc
        } else {
            base + cc * self.width + byte
        }
    }
}

/// Extents of the logical tensor are needed for the outer index; they are stored here.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WithDims<'a, G> {
    pub geom: &'a G,
    pub dims: &'a Dims,
}

impl AddressMap for WithDims<'_, TiledGeom> {
    fn byte_offset(&self, coord: &[u64], byte: u64) -> u64 {
        let g = self.geom;
        let outer = g.outer_index(coord, self.dims.extents());
        let x = g.role_axis.map(|a| a.map_or(0, |ax| coord[ax]));
        g.offset_dhwc(outer, x, byte)
    }
}

impl CBlockedGeom {
    pub fn new(dims: &Dims, c: &MlaCBlocked, dtype: DType) -> Result<CBlockedGeom, TensorError> {
        let width = dtype.width();
        let rank = dims.rank();
        let e = dims.extents();
        let (h, w, ch) = (e[rank - 3], e[rank - 2], e[rank - 1]);
        let mut n_outer = 1u64;
        for &x in &e[..rank - 3] {
            n_outer = mul(n_outer, x, "outer tile count")?;
        }
        let n_cb = ceil_div(ch, CBLOCK_LANES);
        let n_th = ceil_div(h, c.tile_h);
        let n_tw = ceil_div(w, c.tile_w);
        let mut tile_raw = mul(n_cb, c.tile_h, "tile bytes")?;
        tile_raw = mul(tile_raw, c.tile_w, "tile bytes")?;
        tile_raw = mul(tile_raw, CBLOCK_LANES * width, "tile bytes")?;
        let tile_bytes = round_up(tile_raw, c.tile_align, "aligned tile bytes")?;
        let span = if dims.is_empty() {
            0
        } else {
            let n = mul(mul(n_outer, n_th, "tile count")?, n_tw, "tile count")?;
            mul(n, tile_bytes, "required bytes")?
        };
        Ok(CBlockedGeom {
            width,
            planes: dtype == DType::BF16,
            rank,
            h,
            w,
            c: ch,
            tile_h: c.tile_h,
            tile_w: c.tile_w,
            n_cb,
            n_th,
            n_tw,
            n_outer,
            tile_raw,
            tile_bytes,
            span,
        })
    }

    /// Offset for outer index and (h, w, c).
    pub fn offset_hwc(&self, outer: u64, h: u64, w: u64, c: u64, byte: u64) -> u64 {
        let tile_no = (outer * self.n_th + h / self.tile_h) * self.n_tw + w / self.tile_w;
        let pix = (h % self.tile_h) * self.tile_w + w % self.tile_w;
        let group = (c / CBLOCK_LANES) * self.tile_h * self.tile_w + pix;
        let base = tile_no * self.tile_bytes + group * CBLOCK_LANES * self.width;
        let lane = c % CBLOCK_LANES;
        if self.planes {
            base + byte * CBLOCK_LANES + lane
        } else {
            base + lane * self.width + byte
        }
    }
}

impl AddressMap for WithDims<'_, CBlockedGeom> {
    fn byte_offset(&self, coord: &[u64], byte: u64) -> u64 {
        let g = self.geom;
        let e = self.dims.extents();
        let mut outer = 0u64;
        for ax in 0..g.rank - 3 {
            outer = outer * e[ax] + coord[ax];
        }
        let r = g.rank;
        g.offset_hwc(outer, coord[r - 3], coord[r - 2], coord[r - 1], byte)
    }
}

impl Geometry {
    /// Builds the address map; checks the placement's structure and all size arithmetic.
    pub fn new(dims: &Dims, dtype: DType, p: &Placement) -> Result<Geometry, TensorError> {
        p.check(dims)?;
        let width = dtype.width();
        Ok(match p {
            Placement::Contiguous => Geometry::Strided(StridedGeom::contiguous(dims, width)?),
            Placement::Strided(s) => Geometry::Strided(StridedGeom::strided(dims, s, width)?),
            Placement::MlaTiled(t) => Geometry::Tiled(TiledGeom::new(dims, t, dtype)?),
            Placement::MlaCBlocked(c) => Geometry::CBlocked(CBlockedGeom::new(dims, c, dtype)?),
        })
    }

    pub fn span(&self) -> u64 {
        match self {
            Geometry::Strided(g) => g.span,
            Geometry::Tiled(g) => g.span,
            Geometry::CBlocked(g) => g.span,
        }
    }

    /// Byte offset of `byte` of the element at `coord` (unchecked; see [`AddressMap`]).
    pub fn byte_offset(&self, dims: &Dims, coord: &[u64], byte: u64) -> u64 {
        match self {
            Geometry::Strided(g) => g.byte_offset(coord, byte),
            Geometry::Tiled(g) => WithDims { geom: g, dims }.byte_offset(coord, byte),
            Geometry::CBlocked(g) => WithDims { geom: g, dims }.byte_offset(coord, byte),
        }
    }
}

/// Builds the byte-level [`Layout`](crate::Layout) of a placement from per-mode
/// (shape, stride) leaves: one top-level mode per logical axis, preceded by the
/// byte-within-element mode. A mode with two leaves `(t, n):(s_in, s_tile)` splits a
/// tiled axis into position-in-tile and tile number; a single integer coordinate
/// for that mode decomposes exactly that way (first leaf fastest, CuTe's convention).
fn layout_from_modes(modes: &[Vec<(u64, u64)>]) -> Result<crate::Layout, TensorError> {
    let shape: Vec<Vec<u64>> = modes
        .iter()
        .map(|m| m.iter().map(|l| l.0).collect())
        .collect();
    let stride: Vec<Vec<u64>> = modes
        .iter()
        .map(|m| m.iter().map(|l| l.1).collect())
        .collect();
    let err = |e: crate::LayoutError| TensorError::new(Rule::Overflow, format!("byte layout: {e}"));
    let shape = crate::Shape::new(shape).map_err(err)?;
    let stride = crate::Stride::new(stride).map_err(err)?;
    crate::Layout::new(shape, stride).map_err(err)
}

impl Geometry {
    /// The placement's byte-level layout: coordinate `(byte, x0, x1, ...)` -> byte offset.
    /// `None` for an empty tensor, which has no placement layout. For strided and
    /// contiguous placements `cosize` equals the required span; for tiled placements the
    /// domain of a tiled axis is padded to whole tiles and `span` additionally counts the
    /// last tile's alignment gap.
    pub fn byte_layout(
        &self,
        dims: &Dims,
        width: u64,
    ) -> Result<Option<crate::Layout>, TensorError> {
        if dims.is_empty() {
            return Ok(None);
        }
        let ext = dims.extents();
        let mut modes: Vec<Vec<(u64, u64)>> = Vec::new();
        match self {
            Geometry::Strided(g) => {
                modes.push(vec![(width, 1)]);
                for ax in 0..g.rank {
                    modes.push(vec![(g.ext[ax], g.stride[ax])]);
                }
            }
            Geometry::Tiled(g) => {
                let w = g.width;
                let [_, th, tw, tc] = g.tile;
                let [nd, nh, nw, nc] = g.ntiles;
                let tb = g.tile_bytes;
                modes.push(vec![(w, if g.planes { tc } else { 1 })]);
                // Strides inside a tile (pixel D/H/W order, channel fastest) and of tile numbers.
                let c_in = if g.planes { 1 } else { w };
                let inner = [tw * th * tc * w, tw * tc * w, tc * w, c_in];
                let tile = [nh * nw * tb, nw * tb, tb, nd * nh * nw * tb];
                let outer_unit = nc * nd * nh * nw * tb;
                // Outer axes: row-major (last fastest) over the outer axes, times outer_unit.
                let mut outer_stride = [0u64; MAX_RANK];
                let mut acc = outer_unit;
                for &ax in g.outer_axes[..g.n_outer_axes].iter().rev() {
                    outer_stride[ax] = acc;
                    acc = acc.saturating_mul(ext[ax]);
                }
                for ax in 0..dims.rank() {
                    match g.role_axis.iter().position(|r| *r == Some(ax)) {
                        Some(i) => modes.push(vec![(g.tile[i], inner[i]), (g.ntiles[i], tile[i])]),
                        None => modes.push(vec![(ext[ax], outer_stride[ax])]),
                    }
                }
            }
            Geometry::CBlocked(g) => {
                let w = g.width;
                let l = CBLOCK_LANES;
                let tb = g.tile_bytes;
                modes.push(vec![(w, if g.planes { l } else { 1 })]);
                let r = g.rank;
                let mut acc = g.n_th * g.n_tw * tb;
                let mut outer_stride = [0u64; MAX_RANK];
                for ax in (0..r - 3).rev() {
                    outer_stride[ax] = acc;
                    acc = acc.saturating_mul(ext[ax]);
                }
                for (&e, &s) in ext.iter().zip(&outer_stride[..r - 3]) {
                    modes.push(vec![(e, s)]);
                }
                modes.push(vec![(g.tile_h, g.tile_w * l * w), (g.n_th, g.n_tw * tb)]);
                modes.push(vec![(g.tile_w, l * w), (g.n_tw, tb)]);
                let lane = if g.planes { 1 } else { w };
                modes.push(vec![(l, lane), (g.n_cb, g.tile_h * g.tile_w * l * w)]);
            }
        }
        layout_from_modes(&modes).map(Some)
    }
}
