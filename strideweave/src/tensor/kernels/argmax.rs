//! Argmax along one axis: ties give the smallest index, NaN (either sign) beats every
//! number and the first NaN wins, -0.0 ties +0.0. Padding of tiled inputs is never read.

use crate::tensor::convert::{Elem, EBF16, EF16, EF32};
use crate::tensor::dims::MAX_RANK;
use crate::tensor::dtype::DType;
use crate::tensor::error::{Rule, TensorError};
use crate::tensor::placement::Geometry;
use crate::tensor::spec::TensorSpec;

/// Index of the maximum of `n >= 1` values given by `get` (the argmax rules above).
#[inline(always)]
fn argmax_by(n: usize, mut get: impl FnMut(usize) -> f32) -> usize {
    let mut best = get(0);
    if best.is_nan() {
        return 0;
    }
    let mut bi = 0;
    for k in 1..n {
        let v = get(k);
        if v > best {
            best = v;
            bi = k;
        } else if v.is_nan() {
            return k;
        }
    }
    bi
}

/// Argmax of a contiguous run of `S` elements.
#[inline(always)]
fn argmax_contiguous<S: Elem>(run: &[u8]) -> usize {
    let mut it = run.chunks_exact(S::W);
    let Some(first) = it.next() else { return 0 };
    let mut best = S::to_f32(S::read(first, 0));
    if best.is_nan() {
        return 0;
    }
    let mut bi = 0;
    for (k, e) in it.enumerate() {
        let v = S::to_f32(S::read(e, 0));
        if v > best {
            best = v;
            bi = k + 1;
        } else if v.is_nan() {
            return k + 1;
        }
    }
    bi
}

fn argmax_impl<S: Elem>(
    spec: &TensorSpec,
    g: &Geometry,
    axis: usize,
    src: &[u8],
    out_w: usize,
    dst: &mut [u8],
) {
    let rank = spec.dims.rank();
    let ext = spec.dims.extents();
    let n = ext[axis] as usize;
    if spec.dims.is_empty() {
        return;
    }
    let mut coord = [0u64; MAX_RANK];
    let mut out = dst.chunks_exact_mut(out_w);
    loop {
        let idx = match g {
            Geometry::Strided(sg) => {
                let base = sg.byte_offset_usize(&coord[..rank]);
                let st = sg.stride[axis] as usize;
                if st == S::W {
                    argmax_contiguous::<S>(&src[base..base + n * S::W])
                } else {
                    argmax_by(n, |k| S::to_f32(S::read(src, base + k * st)))
                }
            }
            _ => {
                let mut c = coord;
                argmax_by(n, |k| {
                    c[axis] = k as u64;
                    let mut bits = 0u32;
                    for byte in 0..S::W {
                        let off = g.byte_offset(&spec.dims, &c[..rank], byte as u64) as usize;
                        bits |= u32::from(src[off]) << (8 * byte);
                    }
                    S::to_f32(bits)
                })
            }
        };
        let Some(o) = out.next() else { return };
        if out_w == 4 {
            o.copy_from_slice(&(idx as i32).to_le_bytes());
        } else {
            o.copy_from_slice(&(idx as i64).to_le_bytes());
        }
        // Row-major odometer over every axis but `axis`.
        let mut ax = rank;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            if ax == axis {
                continue;
            }
            coord[ax] += 1;
            if coord[ax] < ext[ax] {
                break;
            }
            coord[ax] = 0;
        }
    }
}

/// Runs argmax; `dst` is exactly the contiguous output span.
pub(crate) fn argmax(
    _exec: &super::Exec,
    spec: &TensorSpec,
    g: &Geometry,
    axis: usize,
    src: &[u8],
    out: DType,
    dst: &mut [u8],
) -> Result<(), TensorError> {
    let w = out.width() as usize;
    match spec.dtype {
        DType::F32 => argmax_impl::<EF32>(spec, g, axis, src, w, dst),
        DType::F16 => argmax_impl::<EF16>(spec, g, axis, src, w, dst),
        DType::BF16 => argmax_impl::<EBF16>(spec, g, axis, src, w, dst),
        d => {
            return Err(TensorError::new(
                Rule::UnsupportedDType,
                format!("argmax: input dtype {d} is not a float dtype"),
            ))
        }
    }
    Ok(())
}
