//! Splitting a kernel's output into disjoint parts run on the current rayon pool.
//!
//! Each part owns a disjoint byte range of the output and computes it from the shared
//! input exactly as the single-threaded loop would, so results never depend on the
//! number of parts or threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::tensor::convert::ConvertPath;
use crate::tensor::placement::StridedGeom;

/// How a kernel runs: the conversion path and into how many parts its work is split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exec {
    pub path: ConvertPath,
    /// Parts to split the output into (1: single-threaded on the calling thread).
    pub parts: usize,
}

/// Chunks per part: more chunks than threads let a thread that has a core take over the
/// chunks of one that has not (on a shared machine one of two threads often waits for a
/// core, and an even two-way split then runs at the speed of the slower thread).
const CHUNKS_PER_PART: usize = 4;

/// Output bytes below which a chunk is not split further (a chunk costs a task and a
/// lock; 256 KiB keeps that below 0.1% of the chunk's work).
const MIN_CHUNK_BYTES: usize = 256 << 10;

/// Runs `work(i)` for every `i < n` on at most `parts` threads of the current rayon
/// pool: each thread takes the next index from a shared counter until none is left, so
/// the indices are spread by availability, not fixed in advance. Which thread runs an
/// index never changes what it computes.
fn run_dynamic(parts: usize, n: usize, work: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let worker = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        work(i);
    };
    rayon::scope(|s| {
        for _ in 1..parts.min(n) {
            s.spawn(|_| worker());
        }
        worker();
    });
}

/// Runs `f(first_unit, units, chunk)` over `dst` cut into chunks of whole units of
/// `unit` bytes (the last chunk may be shorter: it ends at `dst`'s end), on at most
/// `exec.parts` threads. There are up to [`CHUNKS_PER_PART`] chunks per part, none
/// smaller than [`MIN_CHUNK_BYTES`] unless that leaves fewer chunks than parts.
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
    let by_size = nunits.div_ceil((MIN_CHUNK_BYTES / unit).max(1));
    let nchunks = (exec.parts.saturating_mul(CHUNKS_PER_PART))
        .min(by_size)
        .max(exec.parts.min(nunits));
    let per = nunits.div_ceil(nchunks);
    let chunks: Vec<Mutex<&mut [u8]>> = dst
        .chunks_mut(per * unit)
        .take(nunits.div_ceil(per))
        .map(Mutex::new)
        .collect();
    run_dynamic(exec.parts, chunks.len(), |i| {
        // Each index is taken once, so the lock is never contended.
        let mut chunk = chunks[i].lock().unwrap_or_else(PoisonError::into_inner);
        let first = i * per;
        f(first, per.min(nunits - first), &mut chunk)
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

/// Runs `f(range)` over `0..n` cut into consecutive ranges (up to [`CHUNKS_PER_PART`]
/// per part) on at most `exec.parts` threads.
pub(crate) fn for_ranges(exec: &Exec, n: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    let parts = exec.parts.min(n).max(1);
    if parts == 1 {
        f(0..n);
        return;
    }
    let per = n.div_ceil(parts.saturating_mul(CHUNKS_PER_PART).min(n));
    run_dynamic(parts, n.div_ceil(per), |i| {
        let start = i * per;
        f(start..(start + per).min(n))
    });
}

/// An output buffer shared by the parts of a parallel kernel, each of which takes
/// disjoint byte ranges of it (whole tiles).
pub(crate) struct SharedOut<'a> {
    ptr: *mut u8,
    len: usize,
    _buf: std::marker::PhantomData<&'a mut [u8]>,
}

// SAFETY: `SharedOut` only hands out byte ranges through `range`, whose contract makes
// the callers' ranges disjoint; `u8` has no thread affinity.
unsafe impl Sync for SharedOut<'_> {}

impl<'a> SharedOut<'a> {
    /// Takes the exclusive borrow of `buf` for the lifetime of the value.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SharedOut {
            ptr: buf.as_mut_ptr(),
            len: buf.len(),
            _buf: std::marker::PhantomData,
        }
    }

    /// The buffer's first byte (for kernels that write disjoint pieces through pointers).
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes `start..start + len` (a panic, before any access, when outside).
    ///
    /// # Safety
    /// No two ranges obtained from this value and alive at the same time may intersect.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn range(&self, start: usize, len: usize) -> &mut [u8] {
        assert!(
            start.checked_add(len).is_some_and(|e| e <= self.len),
            "SharedOut: range outside the buffer"
        );
        // SAFETY: in bounds (asserted) of the buffer exclusively borrowed for 'a; the
        // caller guarantees no other live range intersects this one.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}
