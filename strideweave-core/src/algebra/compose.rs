//! Functional composition `R(c) = A(B(c))` (CuTe's `composition`), with CuTe's
//! divisibility conditions checked at run time as well as at compile time.

use super::tiler::{by_mode, by_mode_shape, ModeOp};
use crate::error::{tri, CoreError};
use crate::int_tuple::{IntTuple, Node};
use crate::layout::mul;
use crate::{Layout, MAX_LEAVES};

/// `A ∘ B`: B's hierarchy is kept; each leaf of B is composed with all of A.
///
/// Fails with [`CoreError::StrideDivisibility`] or [`CoreError::ShapeDivisibility`]
/// where CuTe's result would not be `A(B(i))`. Along A's last mode the result may run
/// past `size(A)`, as in CuTe (that is how padded tilings work).
///
/// A B with several leaves is composed leaf by leaf and the parts are added, which equals
/// `A(B(c))` only if the parts never carry between A's modes; where they would (e.g. a
/// non-injective B over a multi-mode A) this fails with [`CoreError::ModeOverlap`].
pub const fn compose(a: &Layout, b: &Layout) -> Result<Layout, CoreError> {
    let fa = Flat::of(a);
    tri!(check_no_carry(&fa, b));
    compose_flat(&fa, b)
}

/// [`compose`] with A already coalesced and the parts already checked.
const fn compose_flat(fa: &Flat, b: &Layout) -> Result<Layout, CoreError> {
    let bt = b.shape_tuple();
    let mut r = Layout::EMPTY;
    if bt.is_scalar() {
        tri!(emit_leaf(
            &mut r,
            fa,
            b.leaf_extent(0),
            b.leaf_stride(0),
            false
        ));
        return r.validated();
    }
    // walk B's recipe: parentheses are copied, each leaf becomes its composition with A
    let mut node = 0;
    let mut leaf = 0;
    while node < bt.node_count() {
        match bt.node(node) {
            Node::Leaf => {
                tri!(emit_leaf(
                    &mut r,
                    fa,
                    b.leaf_extent(leaf),
                    b.leaf_stride(leaf),
                    true
                ));
                leaf += 1;
            }
            n => tri!(r.push_structure(n)),
        }
        node += 1;
    }
    r.validated()
}

/// `(A ∘ X, A ∘ Y)` as two layouts: the halves of `A ∘ (X, Y)`, checked jointly.
pub(crate) const fn compose_pair(
    a: &Layout,
    x: &Layout,
    y: &Layout,
) -> Result<(Layout, Layout), CoreError> {
    let fa = Flat::of(a);
    let mut both = Layout::EMPTY;
    tri!(both.push_modes(x));
    tri!(both.push_modes(y));
    tri!(check_no_carry(&fa, &both));
    Ok((tri!(compose_flat(&fa, x)), tri!(compose_flat(&fa, y))))
}

/// Whether [`compose`] admits `A ∘ B` (CuTe's stride and shape divisibility conditions,
/// the parts not carrying, and the result fitting in `u64`), with the same error.
pub const fn can_compose(a: &Layout, b: &Layout) -> Result<(), CoreError> {
    match compose(a, b) {
        Ok(_) => Ok(()),
        Err(e) => Err(e),
    }
}

/// `A ∘ (s:d)` for one integer mode of B.
pub const fn compose_leaf(a: &Layout, s: u64, d: u64) -> Result<Layout, CoreError> {
    let mut r = Layout::EMPTY;
    tri!(emit_leaf(&mut r, &Flat::of(a), s, d, false));
    r.validated()
}

/// A's coalesced leaves: the flat function composition works on.
struct Flat {
    n: usize,
    s: [u64; MAX_LEAVES],
    d: [u64; MAX_LEAVES],
}

impl Flat {
    /// `coalesce(a)` as flat arrays, except that A's last leaf is kept even at extent 1:
    /// past `size(A)` the composition continues along A's last mode (CuTe's `coalesce_x`),
    /// so `1:1 ∘ 4:1` is `4:1` and `(4,3,1):(3,1,0) ∘ 24:1` ends in a stride-0 mode. The
    /// last entry's extent is never read: that mode is unbounded.
    const fn of(a: &Layout) -> Flat {
        let mut f = Flat {
            n: 1,
            s: [0; MAX_LEAVES],
            d: [0; MAX_LEAVES],
        };
        f.s[0] = 1;
        let count = a.leaf_count();
        let mut i = 0;
        while i < count {
            let (mut s, d) = (a.leaf_extent(i), a.leaf_stride(i));
            if s == 1 && i + 1 == count {
                s = 2; // any extent above 1: the last mode is unbounded anyway
            }
            let last = f.n - 1;
            if s == 1 {
                // contributes nothing
            } else if f.s[last] == 1 {
                f.s[last] = s;
                f.d[last] = d;
            } else if matches!(f.s[last].checked_mul(f.d[last]), Some(p) if p == d) {
                // only a merge into the unbounded last mode can exceed size(a)
                f.s[last] = f.s[last].saturating_mul(s);
            } else {
                f.s[f.n] = s;
                f.d[f.n] = d;
                f.n += 1;
            }
            i += 1;
        }
        f
    }
}

/// One step of B's remaining `rest_shape:rest_stride` through a bounded mode `si:di` of
/// coalesced A (CuTe's fold in `composition_impl`): the part of B that lands in this mode
/// is `take:(di*scale)`, and `reach` is the largest coordinate of the mode it touches.
struct Step {
    take: u64,
    scale: u64,
    rest_shape: u64,
    rest_stride: u64,
    reach: u64,
}

/// Walks B's remaining extent and stride through mode `si:di`, or says which of CuTe's
/// divisibility conditions fails. The rule rejects exactly where CuTe's result would not
/// be `A(B(i))`:
/// * a stride that divides the mode, or that the mode divides, is CuTe's ordinary step;
/// * a stride below the mode that does not divide it is fine while B stays inside the
///   mode (`compose((8,8):(8,1), 3:3)` is `3:24`), and past it only through a stride-0
///   mode whose wrapped coordinates never carry twice (then CuTe's result is exact);
/// * anything else crosses a mode boundary at a point CuTe's result gets wrong.
const fn step(si: u64, di: u64, rest_shape: u64, rest_stride: u64) -> Result<Step, CoreError> {
    let skip = Step {
        take: 1,
        scale: 0,
        rest_shape,
        rest_stride,
        reach: 0,
    };
    if rest_shape == 1 {
        return Ok(skip); // B has ended: later modes cannot matter
    }
    let r = rest_stride;
    if si.is_multiple_of(r) {
        let new_s = si / r;
        let take = if rest_shape <= new_s {
            rest_shape // B ends inside this mode (CuTe's mid-layout truncation)
        } else if rest_shape.is_multiple_of(new_s) {
            new_s
        } else {
            return Err(CoreError::ShapeDivisibility {
                extent: new_s,
                rest: rest_shape,
            });
        };
        return Ok(Step {
            take,
            scale: r,
            rest_shape: rest_shape / take,
            rest_stride: 1,
            reach: (take - 1) * r, // below si
        });
    }
    if r.is_multiple_of(si) {
        return Ok(Step {
            rest_stride: r / si,
            ..skip
        });
    }
    if r > si {
        return Err(CoreError::StrideDivisibility {
            extent: si,
            stride: r,
        });
    }
    // r < si and r does not divide si: q steps fit before the first wrap
    let q = si.div_ceil(r);
    if rest_shape <= q {
        return Ok(Step {
            take: rest_shape,
            scale: r,
            rest_shape: 1,
            rest_stride: 1,
            reach: (rest_shape - 1) * r,
        });
    }
    if di == 0 && rest_shape.is_multiple_of(q) {
        // CuTe continues in the next mode with stride 1, which is exact when every wrap
        // carries exactly once: (J-1)*e + (q-1)*r < si, with e = q*r - si
        let j = rest_shape / q;
        let e = (q as u128 * r as u128 - si as u128) as u64; // below r
        let reach = (j - 1).saturating_mul(e).saturating_add((q - 1) * r);
        if reach < si {
            return Ok(Step {
                take: q,
                scale: r,
                rest_shape: j,
                rest_stride: 1,
                reach,
            });
        }
    }
    Err(CoreError::StrideDivisibility {
        extent: si,
        stride: r,
    })
}

/// The stride CuTe gives `A ∘ (1:d)`: d walked through A's modes with `ceil(d / s_i)`,
/// times the last stride (for a one-mode A simply `d * stride`). An extent-1 mode's
/// stride never reaches an index, so on overflow it is 0.
const fn unit_stride(fa: &Flat, d: u64) -> u64 {
    let mut rest = d;
    let mut i = 0;
    while i + 1 < fa.n {
        rest = rest.div_ceil(fa.s[i]);
        i += 1;
    }
    match rest.checked_mul(fa.d[fa.n - 1]) {
        Some(v) => v,
        None => 0,
    }
}

/// Appends `A ∘ (s:d)` to `r`: one leaf, or several (in parentheses when `wrap`).
const fn emit_leaf(r: &mut Layout, fa: &Flat, s: u64, d: u64, wrap: bool) -> Result<(), CoreError> {
    if s == 1 {
        return r.push_leaf(1, unit_stride(fa, d));
    }
    if d == 0 {
        return r.push_leaf(s, 0);
    }
    let n = fa.n;
    if n == 1 {
        return r.push_leaf(s, tri!(mul(d, fa.d[0])));
    }
    let mut shapes = [0u64; MAX_LEAVES];
    let mut strides = [0u64; MAX_LEAVES];
    let mut k = 0;
    let mut rest_shape = s;
    let mut rest_stride = d;
    let mut i = 0;
    while i + 1 < n {
        let st = tri!(step(fa.s[i], fa.d[i], rest_shape, rest_stride));
        if st.take != 1 {
            shapes[k] = st.take;
            strides[k] = tri!(mul(fa.d[i], st.scale));
            k += 1;
        }
        rest_shape = st.rest_shape;
        rest_stride = st.rest_stride;
        i += 1;
    }
    if rest_shape != 1 || k == 0 {
        shapes[k] = rest_shape;
        strides[k] = tri!(mul(rest_stride, fa.d[n - 1]));
        k += 1;
    }
    if k == 1 {
        return r.push_leaf(shapes[0], strides[0]);
    }
    if wrap {
        tri!(r.push_structure(Node::Push));
    }
    let mut j = 0;
    while j < k {
        tri!(r.push_leaf(shapes[j], strides[j]));
        j += 1;
    }
    if wrap {
        tri!(r.push_structure(Node::Pop));
    }
    Ok(())
}

/// `A ∘ [T0, T1, ...]`: tile `Ti` composed with mode `i` of A; A's later modes kept.
pub const fn compose_tiler(a: &Layout, tiles: &[Layout]) -> Result<Layout, CoreError> {
    by_mode(a, tiles, ModeOp::Compose)
}

/// `A ∘ SHAPE`: each integer item `n` of the shape is the unit-stride tile `n:1` for the
/// corresponding mode of A, a nested item applies by mode inside it; A's later modes kept.
pub const fn compose_shape(a: &Layout, shape: &IntTuple) -> Result<Layout, CoreError> {
    by_mode_shape(a, shape, ModeOp::Compose)
}

/// Checks that B's leaves, composed separately with A, can be added: at every mode of
/// coalesced A but the last, the largest coordinates the leaves reach must sum to less
/// than that mode's extent, or `A(x + y) != A(x) + A(y)` for some of B's values.
const fn check_no_carry(fa: &Flat, b: &Layout) -> Result<(), CoreError> {
    let n = fa.n;
    if b.leaf_count() < 2 || n < 2 {
        return Ok(());
    }
    let mut used = [0u64; MAX_LEAVES];
    let mut k = 0;
    while k < b.leaf_count() {
        let (s, d) = (b.leaf_extent(k), b.leaf_stride(k));
        k += 1;
        if s == 1 || d == 0 {
            continue;
        }
        let mut rest_shape = s;
        let mut rest_stride = d;
        let mut i = 0;
        while i + 1 < n && rest_shape > 1 {
            let st = match step(fa.s[i], fa.d[i], rest_shape, rest_stride) {
                Ok(st) => st,
                Err(_) => return Ok(()), // reported by the composition itself
            };
            // both terms are below `si`; saturating keeps the comparison exact
            used[i] = used[i].saturating_add(st.reach);
            if used[i] >= fa.s[i] {
                return Err(CoreError::ModeOverlap {
                    extent: fa.s[i],
                    reach: used[i],
                });
            }
            rest_shape = st.rest_shape;
            rest_stride = st.rest_stride;
            i += 1;
        }
    }
    Ok(())
}
