//! Exact injectivity and uniform-preimage queries, decided structurally where an argument
//! exists and by a bounded search only for what remains.

use crate::int_tuple::Shape;
use crate::Layout;
use std::collections::HashSet;

/// Leaves that matter for collisions: extent > 1.
fn live_leaves(l: &Layout) -> Vec<(u64, u64)> {
    (0..l.leaf_count())
        .map(|i| (l.leaf_extent(i), l.leaf_stride(i)))
        .filter(|&(s, _)| s > 1)
        .collect()
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Greatest index reached by `leaves` (fits: bounded by the layout's cosize).
fn span(leaves: &[(u64, u64)]) -> u64 {
    leaves.iter().map(|&(s, d)| (s - 1) * d).sum()
}

/// Decides injectivity of positive-stride leaves (extents > 1).
///
/// Peels leaves that provably cannot collide: the largest stride when it exceeds the span
/// of all the others, and the smallest when every other stride is a multiple of its whole
/// span (after dividing out the common gcd). Two equal strides always collide. What no
/// argument decides is searched, whichever is cheaper: a difference-set bitset over
/// `[-span, span]` (cost `O(span * sum of extents)`, span at most 2^26) or an enumeration
/// of the image (cost `O(size)` time and memory).
fn injective_positive(mut leaves: Vec<(u64, u64)>) -> bool {
    loop {
        if leaves.len() <= 1 {
            return true;
        }
        leaves.sort_by_key(|&(s, d)| (d, s));
        if leaves.windows(2).any(|w| w[0].1 == w[1].1) {
            return false;
        }
        let g = leaves.iter().fold(0, |g, &(_, d)| gcd(g, d));
        if g > 1 {
            for l in leaves.iter_mut() {
                l.1 /= g;
            }
        }
        let n = leaves.len();
        let d_top = leaves[n - 1].1;
        if d_top > span(&leaves[..n - 1]) {
            leaves.pop();
            continue;
        }
        let (s0, d0) = leaves[0];
        let block = s0.checked_mul(d0);
        if block.is_some_and(|b| leaves[1..].iter().all(|&(_, d)| d.is_multiple_of(b))) {
            leaves.remove(0);
            continue;
        }
        if let Some(true) = pair_collision(&leaves) {
            return false;
        }
        let total = span(&leaves);
        let size = leaves
            .iter()
            .try_fold(1u64, |p, &(s, _)| p.checked_mul(s))
            .unwrap_or(u64::MAX);
        let extents: u64 = leaves.iter().map(|&(s, _)| s).sum();
        let diff_cost = (2 * total + 1).saturating_mul(extents);
        if total <= 1 << 26 && diff_cost <= size {
            return difference_search(&leaves, total);
        }
        return image_search(&leaves);
    }
}

/// Whether two leaves alone collide: `x*d0 == y*d1` with `0 < x < s0`, `0 < y < s1`
/// has its smallest solution at `x = d1/g`, `y = d0/g` (`g = gcd(d0, d1)`).
fn pair_collision(leaves: &[(u64, u64)]) -> Option<bool> {
    for (i, &(s0, d0)) in leaves.iter().enumerate() {
        for &(s1, d1) in &leaves[i + 1..] {
            let g = gcd(d0, d1);
            if d1 / g < s0 && d0 / g < s1 {
                return Some(true);
            }
        }
    }
    None
}

/// Incremental difference sets: adding leaf `s:d` collides iff some `x*d` (`0 < x < s`)
/// is already a difference of two reachable indices.
fn difference_search(leaves: &[(u64, u64)], total: u64) -> bool {
    let width = (2 * total + 1) as usize;
    let origin = total as usize;
    let mut diff = vec![0u64; width.div_ceil(64)];
    let set = |v: &mut Vec<u64>, i: usize| v[i / 64] |= 1 << (i % 64);
    let get = |v: &Vec<u64>, i: usize| v[i / 64] >> (i % 64) & 1 == 1;
    set(&mut diff, origin);
    let mut reach = 0u64; // current one-sided span
    for &(s, d) in leaves {
        for x in 1..s {
            let off = (x * d) as usize;
            if off <= reach as usize && get(&diff, origin + off) {
                return false;
            }
        }
        // new difference set: D + {x*d : |x| < s}
        let old = diff.clone();
        for v in 0..=(2 * reach as usize) {
            let p = origin - reach as usize + v;
            if !get(&old, p) {
                continue;
            }
            for x in 1..s {
                let off = (x * d) as usize;
                set(&mut diff, p + off);
                set(&mut diff, p - off);
            }
        }
        reach += (s - 1) * d;
    }
    true
}

/// Enumerates the image with a hash set (for huge spans no argument reduced).
fn image_search(leaves: &[(u64, u64)]) -> bool {
    let size: u64 = leaves.iter().map(|&(s, _)| s).product();
    let mut seen = HashSet::with_capacity(size.min(1 << 24) as usize);
    let mut coord = vec![0u64; leaves.len()];
    let mut idx = 0u64;
    loop {
        if !seen.insert(idx) {
            return false;
        }
        let mut k = 0;
        loop {
            if k == leaves.len() {
                return true;
            }
            // wrapping: intermediate sums past the last coordinate may exceed u64, the
            // values compared are all below the layout's cosize
            coord[k] += 1;
            idx = idx.wrapping_add(leaves[k].1);
            if coord[k] < leaves[k].0 {
                break;
            }
            idx = idx.wrapping_sub(leaves[k].0.wrapping_mul(leaves[k].1));
            coord[k] = 0;
            k += 1;
        }
    }
}

impl Layout {
    /// True exactly when distinct coordinates map to distinct indices.
    ///
    /// Decided structurally for ordinary layouts (stride-0 modes, equal strides, stride
    /// chains from the top and from the bottom, common factors), so layouts of size 2^40
    /// answer at once; only an irreducible overlapping core is searched (see the module
    /// docs for its cost).
    ///
    /// ```
    /// let inj = |s: &str| s.parse::<strideweave::Layout>().unwrap().is_injective();
    /// assert!(inj("(2,3):(1,4)"));
    /// assert!(!inj("(4,2):(0,1)"));
    /// assert!(!inj("(4,2):(1,1)"));
    /// ```
    pub fn is_injective(&self) -> bool {
        let leaves = live_leaves(self);
        if leaves.iter().any(|&(_, d)| d == 0) {
            return false;
        }
        if self.cosize() < self.size() {
            return false;
        }
        injective_positive(leaves)
    }

    /// The number `k` of coordinates reaching each index of `[0, size(target))`, when the
    /// layout provably maps onto that range uniformly; `None` otherwise.
    ///
    /// Algebraic: a uniform surjection onto `[0, N)` is exactly a set of stride-0 leaves
    /// (multiplicity `k` = the product of their extents) beside positive-stride leaves that
    /// form a compact chain `1, s0, s0*s1, ...` of total size `N`; no coordinate is
    /// enumerated.
    ///
    /// ```
    /// use strideweave::{Layout, Shape};
    /// let l: Layout = "(4,3):(0,1)".parse().unwrap();
    /// assert_eq!(l.uniform_preimage_extent(&Shape::new(3).unwrap()), Some(4));
    /// let m: Layout = "(2,2):(1,1)".parse().unwrap();
    /// assert_eq!(m.uniform_preimage_extent(&Shape::new(3).unwrap()), None);
    /// ```
    pub fn uniform_preimage_extent(&self, target: &Shape) -> Option<u64> {
        let n = target.checked_size()?;
        let mut k: u64 = 1;
        let mut chain: Vec<(u64, u64)> = Vec::new();
        for (s, d) in live_leaves(self) {
            if d == 0 {
                k = k.checked_mul(s)?;
            } else {
                chain.push((s, d));
            }
        }
        chain.sort_by_key(|&(s, d)| (d, s));
        let mut expect = 1u64;
        for (s, d) in chain {
            if d != expect {
                return None;
            }
            expect = expect.checked_mul(s)?;
        }
        (expect == n).then_some(k)
    }
}
