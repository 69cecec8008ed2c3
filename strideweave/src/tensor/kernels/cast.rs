//! Cast between contiguous/strided placements of float dtypes.
//!
//! Only the bytes of logical elements are written; gaps between rows stay unchanged.

use super::parallel::{for_unit_chunks, split_axis, Exec};
use super::run::{convert_grid, convert_row, Fmt, Row, Side, ONE_ROW};
use crate::tensor::convert::{dispatch_float_pair, Elem};
use crate::tensor::dims::MAX_RANK;
use crate::tensor::dtype::DType;
use crate::tensor::error::TensorError;
use crate::tensor::placement::StridedGeom;

/// Axes after dropping extent-1 axes and merging axes that are contiguous in both views.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Coalesced {
    pub rank: usize,
    pub ext: [usize; MAX_RANK],
    pub sa: [usize; MAX_RANK],
    pub sb: [usize; MAX_RANK],
}

/// Coalesces the axes of two strided views of the same dims (outermost first).
/// Spans fit in `usize` (checked by the bindings), so do all offsets.
pub(crate) fn coalesce(a: &StridedGeom, b: &StridedGeom) -> Coalesced {
    let mut c = Coalesced {
        rank: 0,
        ext: [1; MAX_RANK],
        sa: [0; MAX_RANK],
        sb: [0; MAX_RANK],
    };
    for ax in 0..a.rank {
        let e = a.ext[ax] as usize;
        if e == 1 {
            continue;
        }
        let (sa, sb) = (a.stride[ax] as usize, b.stride[ax] as usize);
        if c.rank > 0 {
            let l = c.rank - 1;
            if sa.checked_mul(e) == Some(c.sa[l]) && sb.checked_mul(e) == Some(c.sb[l]) {
                c.ext[l] *= e;
                c.sa[l] = sa;
                c.sb[l] = sb;
                continue;
            }
        }
        c.ext[c.rank] = e;
        c.sa[c.rank] = sa;
        c.sb[c.rank] = sb;
        c.rank += 1;
    }
    c
}

/// Visits every row of the coalesced view: calls `f(offset_a, offset_b)` for each
/// combination of the outer axes (all but the innermost).
pub(crate) fn for_each_row(c: &Coalesced, mut f: impl FnMut(usize, usize)) {
    if c.rank <= 1 {
        f(0, 0);
        return;
    }
    let outer = c.rank - 1;
    let mut idx = [0usize; MAX_RANK];
    let (mut oa, mut ob) = (0usize, 0usize);
    loop {
        f(oa, ob);
        let mut ax = outer;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            if idx[ax] + 1 < c.ext[ax] {
                idx[ax] += 1;
                oa += c.sa[ax];
                ob += c.sb[ax];
                break;
            }
            // (extent - 1) * stride is at most the span, so this cannot overflow.
            oa -= c.sa[ax] * (c.ext[ax] - 1);
            ob -= c.sb[ax] * (c.ext[ax] - 1);
            idx[ax] = 0;
        }
    }
}

fn cast_impl<S: Elem, D: Elem>(
    exec: &Exec,
    a: &StridedGeom,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
) {
    if a.span == 0 {
        return;
    }
    match split_axis(b) {
        Some(ax) if exec.parts > 1 => {
            let (sa, sb) = (a.stride[ax] as usize, b.stride[ax] as usize);
            for_unit_chunks(exec, dst, sb, a.ext[ax] as usize, |first, n, chunk| {
                let mut part_a = *a;
                part_a.ext[ax] = n as u64;
                let mut part_b = *b;
                part_b.ext[ax] = n as u64;
                cast_rows::<S, D>(exec, &part_a, &src[first * sa..], &part_b, chunk);
            });
        }
        _ => cast_rows::<S, D>(exec, a, src, b, dst),
    }
}

/// The single-threaded cast over the coalesced view: the innermost axis is a run, the
/// next one the run's pixels, up to three more the grid of one `convert_grid` call, and
/// any others are looped here. A call per run cost about 40 ns, 27x the contiguous Cast
/// for `f32[1,57,55,40]` into pixels padded to 48 channels (3135 runs of 40 elements).
fn cast_rows<S: Elem, D: Elem>(
    exec: &Exec,
    a: &StridedGeom,
    src: &[u8],
    b: &StridedGeom,
    dst: &mut [u8],
) {
    let c = coalesce(a, b);
    if c.rank == 0 {
        let row = Row::run(1);
        convert_row::<S, D>(exec.path, src, Side::run(S::W), dst, Side::run(D::W), row);
        return;
    }
    let c = run_axes_last::<S, D>(&c);
    let r = c.rank;
    let (n, sa, sb) = (c.ext[r - 1], c.sa[r - 1], c.sb[r - 1]);
    let side = |pixel: usize, stride: usize| Side {
        pixel,
        group: 0,
        fmt: Fmt::Elements(stride),
        ahead: 0,
    };
    let (row, s, d, inner) = if r >= 2 {
        let row = Row {
            npix: c.ext[r - 2],
            valid: n,
            slots: n,
            pad: false,
        };
        (row, side(c.sa[r - 2], sa), side(c.sb[r - 2], sb), 2)
    } else {
        (Row::run(n), Side::run(sa), Side::run(sb), 1)
    };
    let ng = (r - inner).min(3);
    let mut grid = ONE_ROW;
    let mut outer = Coalesced {
        rank: r - inner - ng + 1,
        ext: [1; MAX_RANK],
        sa: [0; MAX_RANK],
        sb: [0; MAX_RANK],
    };
    for ax in 0..r - inner {
        if ax + ng + inner >= r {
            // One of the (up to three) axes just above the row: a grid level.
            grid[3 - (r - inner - ax)] = (c.ext[ax], c.sa[ax], c.sb[ax]);
        } else {
            (outer.ext[ax], outer.sa[ax], outer.sb[ax]) = (c.ext[ax], c.sa[ax], c.sb[ax]);
        }
    }
    for_each_row(&outer, |oa, ob| {
        convert_grid::<S, D>(exec.path, &src[oa..], s, &mut dst[ob..], d, row, grid);
    });
}

/// The coalesced axes reordered for `cast_rows`: last the run's axis (the innermost,
/// unless another axis is dense on the destination and it is not), next to last its
/// pixels (the next one, unless the run is strided on the source and another axis is
/// dense there), the others in logical order. A transposing cast (NCHW data into an
/// NHWC view) so becomes runs of channels over dense pixels, the conversion routine's
/// transpose case, instead of runs strided on the destination.
fn run_axes_last<S: Elem, D: Elem>(c: &Coalesced) -> Coalesced {
    let r = c.rank;
    let mut ord: [usize; MAX_RANK] = std::array::from_fn(|i| i);
    let to_slot = |ord: &mut [usize; MAX_RANK], slot: usize, pick: Option<usize>| {
        if let Some(i) = pick.and_then(|ax| ord[..=slot].iter().position(|&o| o == ax)) {
            let ax = ord[i];
            ord.copy_within(i + 1..=slot, i);
            ord[slot] = ax;
        }
    };
    if c.sb[r - 1] != D::W {
        let dense = (0..r).rev().find(|&ax| c.sb[ax] == D::W);
        to_slot(&mut ord, r - 1, dense);
    }
    let ch = ord[r - 1];
    if r >= 2 && c.sa[ch] != S::W {
        let dense = ord[..r - 1]
            .iter()
            .rev()
            .copied()
            .find(|&ax| c.sa[ax] == S::W);
        to_slot(&mut ord, r - 2, dense);
    }
    let mut out = *c;
    for (i, &ax) in ord[..r].iter().enumerate() {
        (out.ext[i], out.sa[i], out.sb[i]) = (c.ext[ax], c.sa[ax], c.sb[ax]);
    }
    out
}

/// Cast `src` (laid out by `a`) into `dst` (laid out by `b`); both sliced to their spans.
pub(crate) fn cast(
    exec: &Exec,
    from: DType,
    a: &StridedGeom,
    src: &[u8],
    to: DType,
    b: &StridedGeom,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    dispatch_float_pair!(from, to, cast_impl(exec, a, src, b, dst))
}
