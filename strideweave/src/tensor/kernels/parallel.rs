//! Splitting a kernel's output into disjoint parts run on the current rayon pool.
//!
//! The output is cut into chunks (disjoint byte ranges, several per part). The calling
//! thread and at most `parts - 1` helpers on the current rayon pool each claim the next
//! unclaimed chunk until none is left. Each chunk is computed from the shared input
//! exactly as the single-threaded loop would compute it, so results never depend on the
//! number of parts, chunks or threads, nor on which thread ran which chunk.
//!
//! Why this shape (measured on a shared 2-vCPU VM, `benches/RESULTS-tensor.md`): with one
//! chunk per part and the caller blocked until pool threads finish, a run waits for a
//! pool thread to wake (tens of microseconds when the machine is busy) and for its whole
//! share when its thread starts late or is preempted, so runs with two threads were
//! slower than with one whenever no second core was free. Here the caller starts at
//! once, never waits for a helper that has not started, and helpers that do run take
//! over chunks: about one thread's time without a free core, less with one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::tensor::convert::ConvertPath;
use crate::tensor::placement::StridedGeom;

/// How a kernel runs: the conversion path and into how many parts its work is split.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exec {
    pub path: ConvertPath,
    /// Parts to split the output into (1: single-threaded on the calling thread).
    pub parts: usize,
    /// The run's tensors stream from memory ([`spills`](super::cache::spills)): the
    /// conversions' row walks ask for lines ahead (see `run::Side::ahead`).
    pub streams: bool,
}

/// Chunks per part: enough for the workers that run to take over the share of one that
/// starts late, few enough that claiming (one atomic add and one uncontended lock per
/// chunk) stays negligible.
pub(crate) const CHUNKS_PER_PART: usize = 8;

/// Units per chunk for `nunits` units split for `parts` workers: about
/// `CHUNKS_PER_PART` chunks per part, at least one unit each.
pub(crate) fn units_per_chunk(parts: usize, nunits: usize) -> usize {
    nunits.div_ceil(parts.saturating_mul(CHUNKS_PER_PART).min(nunits).max(1))
}

/// The state `run_claimed` shares with its helpers: the next unclaimed index, and the
/// number of helpers working plus a `CLOSED` flag, in one word.
struct Claims {
    next: AtomicUsize,
    state: AtomicUsize,
    n: usize,
    /// The caller's `claim`, its lifetime erased: dereferenced only by a helper that
    /// joined (counted in `state`) before the caller closed the run, and the caller
    /// returns only after every such helper left.
    claim: *const (dyn Fn(usize) + Sync),
}

/// Set in `Claims::state` once the caller found no index left: helpers no longer join.
const CLOSED: usize = 1 << (usize::BITS - 1);

// SAFETY: the atomics are thread-safe; `claim` points to a `Sync` closure and is only
// called under the join protocol described on the field.
unsafe impl Send for Claims {}
// SAFETY: as above.
unsafe impl Sync for Claims {}

impl Claims {
    /// Claims and runs indices until none is left.
    ///
    /// # Safety
    /// `self.claim` is alive: the caller, or a helper that joined before `CLOSED`.
    unsafe fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.n {
                return;
            }
            // SAFETY: alive (contract); a `Sync` closure may be called from any thread.
            unsafe { (*self.claim)(i) };
        }
    }

    /// A helper's whole job: join unless the run is closed, work, leave.
    fn help(&self) {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            if s & CLOSED != 0 {
                return; // Started too late: touch nothing of the caller's.
            }
            match self
                .state
                .compare_exchange_weak(s, s + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        // Leaves (with Release: the chunks written happen before the caller's return)
        // even if `claim` panics, so the caller never waits for a dead helper.
        struct Leave<'a>(&'a AtomicUsize);
        impl Drop for Leave<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Release);
            }
        }
        let _leave = Leave(&self.state);
        // SAFETY: joined before CLOSED, so the caller is still waiting: `claim` is alive.
        unsafe { self.work() };
    }
}

/// Runs `claim(i)` for every `i < n`, each exactly once, on the calling thread and at
/// most `parts - 1` helpers spawned on the current rayon pool, each taking the next
/// unclaimed `i` until none is left.
///
/// The caller never waits for a helper that has not started: when it finds no index
/// left it closes the run, and a helper starting afterwards returns without touching
/// anything. It waits only for helpers still finishing an index they claimed. So with
/// no free core (a busy machine) a run costs about one thread's time plus the spawns,
/// and every free core shortens it.
fn run_claimed(parts: usize, n: usize, claim: impl Fn(usize) + Sync) {
    let claim: &(dyn Fn(usize) + Sync) = &claim;
    // SAFETY: erases the lifetime of a reference to `claim`, which outlives every use:
    // see `Claims::claim` and the wait below.
    let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe {
        std::mem::transmute::<
            *const (dyn Fn(usize) + Sync + '_),
            *const (dyn Fn(usize) + Sync + 'static),
        >(claim)
    };
    let shared = std::sync::Arc::new(Claims {
        next: AtomicUsize::new(0),
        state: AtomicUsize::new(0),
        n,
        claim: erased,
    });
    for _ in 1..parts.min(n) {
        let helper = shared.clone();
        rayon::spawn(move || helper.help());
    }
    // Closes and waits even if `claim` panics on this thread, so no helper can call
    // `claim` after this frame is gone.
    struct Close<'a>(&'a Claims);
    impl Drop for Close<'_> {
        fn drop(&mut self) {
            // Nothing is left to claim (or this thread is unwinding): stop new joins.
            self.0.next.fetch_max(self.0.n, Ordering::Relaxed);
            self.0.state.fetch_or(CLOSED, Ordering::AcqRel);
            let mut spins = 0u32;
            while self.0.state.load(Ordering::Acquire) != CLOSED {
                if spins < 64 {
                    std::hint::spin_loop();
                    spins += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
    let close = Close(&shared);
    // SAFETY: `claim` is alive for the whole call.
    unsafe { shared.work() };
    drop(close);
}

/// Runs `f(first_unit, units, chunk)` over `dst` cut into chunks of whole units of
/// `unit` bytes (the last chunk may be shorter: it ends at `dst`'s end), on at most
/// `exec.parts` workers (see the module doc); one call over all of `dst` when
/// `exec.parts` is 1.
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
    let per = units_per_chunk(exec.parts, nunits);
    // Each chunk is taken out of its slot exactly once (by the worker that claimed its
    // index), so every lock is uncontended.
    let chunks: Vec<Mutex<Option<&mut [u8]>>> = dst
        .chunks_mut(per * unit)
        .map(|c| Mutex::new(Some(c)))
        .collect();
    run_claimed(exec.parts, chunks.len(), |i| {
        let chunk = chunks[i].lock().ok().and_then(|mut c| c.take());
        if let Some(chunk) = chunk {
            let first = i * per;
            f(first, per.min(nunits.saturating_sub(first)), chunk);
        }
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

/// Runs `f(range)` over `0..n` cut into consecutive ranges (about `CHUNKS_PER_PART` per
/// part), on at most `exec.parts` workers (see the module doc); one call over `0..n`
/// when `exec.parts` is 1.
pub(crate) fn for_ranges(exec: &Exec, n: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    if exec.parts <= 1 || n <= 1 {
        f(0..n);
        return;
    }
    let per = units_per_chunk(exec.parts, n);
    run_claimed(exec.parts, n.div_ceil(per), |i| {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::convert::ConvertPath;

    fn exec(parts: usize) -> Exec {
        Exec {
            path: ConvertPath::Portable,
            parts,
            streams: false,
        }
    }

    /// Every unit is handed out exactly once, at its own bytes, whatever the number of
    /// parts (more parts than pool threads included: late workers find nothing left).
    #[test]
    fn unit_chunks_cover_every_unit_once_at_its_bytes() {
        for parts in 1..10 {
            for nunits in 1..40 {
                for unit in 1..4 {
                    // The last unit may be cut short: the buffer ends at the span's end.
                    for short in 0..unit {
                        let len = nunits * unit - short;
                        let mut dst = vec![0u8; len];
                        let seen: Vec<Mutex<u32>> = (0..nunits).map(|_| Mutex::new(0)).collect();
                        for_unit_chunks(&exec(parts), &mut dst, unit, nunits, |first, n, chunk| {
                            assert_eq!(chunk.len(), (n * unit).min(len - first * unit));
                            for s in &seen[first..first + n] {
                                *s.lock().unwrap() += 1;
                            }
                            // Mark the chunk's bytes with the unit each belongs to.
                            for (b, x) in chunk.iter_mut().enumerate() {
                                *x = (first + b / unit) as u8;
                            }
                        });
                        assert!(
                            seen.iter().all(|s| *s.lock().unwrap() == 1),
                            "{parts} {nunits} {unit}"
                        );
                        assert!(dst.iter().enumerate().all(|(b, &x)| x == (b / unit) as u8));
                    }
                }
            }
        }
    }

    #[test]
    fn ranges_cover_every_index_once() {
        for parts in 1..10 {
            for n in 0..70 {
                let seen: Vec<Mutex<u32>> = (0..n).map(|_| Mutex::new(0)).collect();
                for_ranges(&exec(parts), n, |r| {
                    for i in r {
                        *seen[i].lock().unwrap() += 1;
                    }
                });
                assert!(seen.iter().all(|s| *s.lock().unwrap() == 1), "{parts} {n}");
            }
        }
    }

    /// With every other pool thread busy, a run split for four parts completes on the
    /// calling thread alone and covers every byte (the helpers it spawned run later,
    /// find the run closed and touch nothing).
    #[test]
    fn a_run_completes_on_the_caller_when_no_other_thread_is_free() {
        use std::sync::atomic::AtomicBool;
        use std::sync::Arc;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let release = Arc::new(AtomicBool::new(false));
        let started = Arc::new(AtomicBool::new(false));
        {
            let (release, started) = (release.clone(), started.clone());
            pool.spawn(move || {
                started.store(true, Ordering::SeqCst);
                while !release.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
            });
        }
        while !started.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // One pool thread is blocked; the other runs this closure, so the helpers it
        // spawns have no thread to run on until the run is over.
        let done = pool.install(|| {
            let mut dst = vec![0u8; 4096];
            for_unit_chunks(&exec(4), &mut dst, 16, 256, |first, _, chunk| {
                chunk.fill(first as u8 | 1)
            });
            dst.iter().all(|&b| b & 1 == 1)
        });
        release.store(true, Ordering::SeqCst);
        assert!(done);
    }

    /// A run split for two parts has about `CHUNKS_PER_PART` chunks per part, so a
    /// worker that starts late leaves its share to the others.
    #[test]
    fn a_split_has_several_chunks_per_part() {
        let mut dst = vec![0u8; 1000];
        let count = Mutex::new(0);
        for_unit_chunks(&exec(2), &mut dst, 1, 1000, |_, _, _| {
            *count.lock().unwrap() += 1
        });
        assert_eq!(*count.lock().unwrap(), 2 * CHUNKS_PER_PART);
    }
}
