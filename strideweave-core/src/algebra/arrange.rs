//! The zipped, tiled and flat arrangements of a division or product: the same tile and
//! rest (or block and copy) modes, grouped differently (CuTe's `zipped_divide`,
//! `tiled_divide`, `flat_divide` and the matching products).

use crate::error::{tri, CoreError};
use crate::Layout;

/// How the tile modes `x_i` and rest modes `y_i` of a by-mode result are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrangement {
    /// `((x0,x1,...),(y0,y1,...),trailing...)`.
    Zipped,
    /// `((x0,x1,...),y0,y1,...,trailing...)`.
    Tiled,
    /// `(x0,x1,...,y0,y1,...,trailing...)`.
    Flat,
}

/// Regroups a by-mode result `((x0,y0),(x1,y1),...,trailing...)` whose first `n` modes are
/// pairs, as `how` says. StrideWeave keeps A's untouched trailing modes after both groups.
pub const fn arrange_by_mode(p: &Layout, n: usize, how: Arrangement) -> Result<Layout, CoreError> {
    let mut xs = Layout::EMPTY;
    let mut ys = Layout::EMPTY;
    let mut i = 0;
    while i < n {
        let pair = tri!(p.mode(i));
        tri!(xs.push_mode(&tri!(pair.mode(0))));
        tri!(ys.push_mode(&tri!(pair.mode(1))));
        i += 1;
    }
    let mut r = Layout::EMPTY;
    match how {
        Arrangement::Zipped => {
            tri!(r.push_group(&xs));
            tri!(r.push_group(&ys));
        }
        Arrangement::Tiled => {
            tri!(r.push_group(&xs));
            tri!(r.push_modes(&ys));
        }
        Arrangement::Flat => {
            tri!(r.push_modes(&xs));
            tri!(r.push_modes(&ys));
        }
    }
    tri!(r.push_modes(&tri!(p.modes(n, p.rank()))));
    r.validated()
}

/// Regroups a two-mode result `(x, y)` of a division or product by one layout: zipped is
/// `(x, y)` itself, tiled `(x, y0, y1, ...)`, flat `(x0, x1, ..., y0, y1, ...)`.
pub const fn arrange_pair(p: &Layout, how: Arrangement) -> Result<Layout, CoreError> {
    let x = tri!(p.mode(0));
    let y = tri!(p.mode(1));
    let mut r = Layout::EMPTY;
    match how {
        Arrangement::Zipped => return Ok(*p),
        Arrangement::Tiled => tri!(r.push_mode(&x)),
        Arrangement::Flat => tri!(r.push_modes(&x)),
    }
    tri!(r.push_modes(&y));
    r.validated()
}
