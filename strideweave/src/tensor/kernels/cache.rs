//! What the CPU reports about its data caches (CPUID's cache parameters: leaf 4 on
//! Intel, 0x8000001D on AMD, the same format), with defaults where it reports nothing;
//! and the one way the kernels ask it to fill a line ahead of use ([`prefetch`]).

/// Ways of an L1 set when the CPU does not say (Zen 1 to 4: 32 KiB, 8 ways).
pub(crate) const L1_WAYS: usize = 8;

/// Bytes of the last-level cache when the CPU does not say (a Zen CCX's L3).
pub(crate) const LAST_LEVEL_BYTES: usize = 32 << 20;

/// Ways of this CPU's L1 data cache, else [`L1_WAYS`]. Zen 5 and Intel cores since Ice
/// Lake have 12 (48 KiB): with 8 assumed there, rows whose pixels put 8 to 11 lines
/// into one set went group by group where pixel by pixel was faster (Zen 5, 90 random
/// cells of 129 to 190 channels in 16-slot tiles or 257 to 376 in 32-slot tiles: 0.957x
/// geomean, out of tiles 0.947x, the best 0.69x, the worst 1.15x).
pub(crate) fn l1_ways() -> usize {
    static WAYS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *WAYS.get_or_init(|| {
        detect(1)
            .map(|c| c.ways)
            .filter(|w| (4..=32).contains(w))
            .unwrap_or(L1_WAYS)
    })
}

/// Bytes of this CPU's largest data cache (the L3 of a core's cluster on AMD), else
/// [`LAST_LEVEL_BYTES`].
pub(crate) fn last_level_bytes() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        (1..=4)
            .rev()
            .find_map(detect)
            .map(|c| c.bytes)
            .filter(|b| (256 << 10..=1 << 32).contains(b))
            .unwrap_or(LAST_LEVEL_BYTES)
    })
}

/// Whether a run that reads and writes `bytes` in all streams its tensors from memory:
/// three quarters of the last-level cache or more (the rest holds other data). On Zen 5
/// (32 MiB L3), CastTess and CastUntess from 23 MB up gained from the row walks'
/// prefetches (see `run::Ahead`), and from 2.8 MB to 19 MB lost up to 1.4x to them.
pub(crate) fn spills(bytes: u64) -> bool {
    bytes >= (last_level_bytes() as u64 / 4).saturating_mul(3)
}

/// Asks the CPU for the cache line holding `p`, into L1 (a hint: `p` may point past any
/// buffer and is never dereferenced; nothing happens off x86-64).
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// [`prefetch`] every 64 bytes of the `len` bytes from `p`.
#[inline(always)]
pub(crate) fn prefetch_lines(p: *const u8, len: usize) {
    for off in (0..len).step_by(64) {
        prefetch(p.wrapping_add(off));
    }
}

/// One data (or unified) cache as CPUID describes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cache {
    pub ways: usize,
    pub bytes: usize,
}

/// The data or unified cache of `level` as CPUID reports it, if it does.
#[cfg(target_arch = "x86_64")]
pub(crate) fn detect(level: u32) -> Option<Cache> {
    use std::arch::x86_64::__cpuid_count;
    // SAFETY (every call below): CPUID exists on every x86-64 CPU; leaves past the
    // reported maximum are not asked.
    #[allow(unused_unsafe)]
    let id = |leaf: u32, sub: u32| unsafe { __cpuid_count(leaf, sub) };
    let v = id(0, 0);
    let vendor = [v.ebx, v.edx, v.ecx];
    let leaf = if vendor == [0x756e_6547, 0x4965_6e69, 0x6c65_746e] {
        // "GenuineIntel": deterministic cache parameters.
        (v.eax >= 4).then_some(4)?
    } else {
        // AMD (and Hygon): the cache topology leaf, when topology extensions exist.
        let ext = id(0x8000_0000, 0).eax;
        let topo = ext >= 0x8000_0001 && id(0x8000_0001, 0).ecx & (1 << 22) != 0;
        (ext >= 0x8000_001D && topo).then_some(0x8000_001D)?
    };
    // Subleaves list the caches until type 0 (1: data, 3: unified). Each field is its
    // count minus one: ways, partitions and line bytes in EBX, sets in ECX.
    (0..8)
        .map(|sub| id(leaf, sub))
        .take_while(|c| c.eax & 0x1F != 0)
        .find_map(|c| {
            let (kind, lvl) = (c.eax & 0x1F, (c.eax >> 5) & 0x7);
            let ways = (c.ebx >> 22) as usize + 1;
            let parts = ((c.ebx >> 12) & 0x3FF) as usize + 1;
            let line = (c.ebx & 0xFFF) as usize + 1;
            let sets = c.ecx as usize + 1;
            let bytes = ways * parts * line * sets;
            ((kind == 1 || kind == 3) && lvl == level).then_some(Cache { ways, bytes })
        })
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn detect(_level: u32) -> Option<Cache> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The L1 data cache's ways, where CPUID reports them, are a real cache's (this
    /// machine's; 8 or 12 on the x86 cores measured), and a CPU that reports none or
    /// nonsense gets the default.
    #[test]
    fn l1_ways_come_from_the_cpu_or_the_default() {
        let ways = l1_ways();
        assert!((4..=32).contains(&ways), "{ways}");
        match detect(1).map(|c| c.ways) {
            Some(w) if (4..=32).contains(&w) => assert_eq!(ways, w),
            _ => assert_eq!(ways, L1_WAYS),
        }
    }

    /// The last-level cache is the largest level CPUID reports (at least the L1's
    /// size), else the default; its size is a whole number of 64-byte lines per way.
    #[test]
    fn last_level_is_the_largest_cache_reported_or_the_default() {
        let bytes = last_level_bytes();
        match (1..=4).rev().find_map(detect) {
            Some(c) if (256 << 10..=1 << 32).contains(&c.bytes) => {
                assert_eq!(bytes, c.bytes);
                assert!(bytes >= detect(1).map_or(0, |l1| l1.bytes));
                assert_eq!(bytes % (64 * c.ways), 0, "{c:?}");
            }
            _ => assert_eq!(bytes, LAST_LEVEL_BYTES),
        }
    }

    /// A run streams from three quarters of the last-level cache on, not a byte sooner.
    #[test]
    fn runs_stream_from_three_quarters_of_the_last_level_cache() {
        let from = (last_level_bytes() as u64 / 4) * 3;
        assert!(spills(from));
        assert!(spills(u64::MAX));
        assert!(!spills(from - 1));
        assert!(!spills(0));
    }
}
