//! Splitting a kernel's output into disjoint parts run on the current rayon pool.
//!
//! Each part owns a disjoint byte range of the output and computes it from the shared
//! input exactly as the single-threaded loop would, so results never depend on the
//! number of parts or threads.

use rayon::prelude::*;

use crate::tensor::convert::ConvertPath;
use crate::tensor::placement::StridedGeom;

/// How a kernel runs: the conversion path and into how many parts its work is split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exec {
    pub path: ConvertPath,
    /// Parts to split the output into (1: single-threaded on the calling thread).
    pub parts: usize,
}

/// Runs `f(first_unit, units, chunk)` over `dst` cut into at most `exec.parts` chunks
/// of whole units of `unit` bytes (the last chunk may be shorter: it ends at `dst`'s end).
pub(crate) fn for_unit_chunks(
    exec: &Exec,
    dst: &mut [u8],
    unit: usize,
    nunits: usize,
    f: impl Fn(usize, usize, &mut [u8]) + Sync,
) {
    if exec.parts <= 1 || nunits <= 1 || unit == 0 {
        f(0, nunits, dst);
        return;
    }
    let per = nunits.div_ceil(exec.parts.min(nunits));
    dst.par_chunks_mut(per * unit)
        .enumerate()
        .for_each(|(i, chunk)| {
            let first = i * per;
            f(first, per.min(nunits - first), chunk)
        });
}

/// The axis to split a strided output on: the one of largest stride among axes of
/// extent > 1. The conservative non-overlap rule (every admitted strided port passes it)
/// makes that stride at least the span of all other axes, so the elements with
/// coordinate `i` along it lie in the byte range `[i * stride, (i + 1) * stride)`.
pub(crate) fn split_axis(b: &StridedGeom) -> Option<usize> {
    (0..b.rank)
        .filter(|&ax| b.ext[ax] > 1)
        .max_by_key(|&ax| b.stride[ax])
}
