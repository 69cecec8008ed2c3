//! Exact injectivity and uniform-preimage queries, decided structurally where an argument
//! exists and by a bounded search only for what remains.

use crate::int_tuple::Shape;
use crate::{CoreError, Layout, LayoutError, MAX_LEAVES};

/// Leaves that matter for collisions (extent > 1), inline.
fn live_leaves(l: &Layout) -> ([(u64, u64); MAX_LEAVES], usize) {
    let mut out = [(0u64, 0u64); MAX_LEAVES];
    let mut n = 0;
    for i in 0..l.leaf_count() {
        let (s, d) = (l.leaf_extent(i), l.leaf_stride(i));
        if s > 1 {
            out[n] = (s, d);
            n += 1;
        }
    }
    (out, n)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Greatest index reached by `leaves` (bounded by the layout's cosize).
fn span(leaves: &[(u64, u64)]) -> u64 {
    leaves.iter().map(|&(s, d)| (s - 1) * d).sum()
}

/// Whether two leaves collide: `x*d0 == y*d1` with `0 < x < s0`, `0 < y < s1` has its
/// smallest solution at `x = d1/g`, `y = d0/g` (`g = gcd(d0, d1)`).
fn pair_collides((s0, d0): (u64, u64), (s1, d1): (u64, u64)) -> bool {
    let g = gcd(d0, d1);
    d1 / g < s0 && d0 / g < s1
}

/// The collision search stopped at its work limit without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Undecided;

/// Steps the collision search of [`Layout::try_is_injective`] may take: nodes of the
/// depth-first search, each a few integer operations, so the limit is reached in well
/// under a second (about 0.15 s of CPU in a release build, 0.4 s unoptimized).
pub const INJECTIVITY_SEARCH_STEPS: u64 = 1 << 21;

/// Bit operations of the difference-set search allowed per step of the limit: that search
/// runs when its whole cost fits, so its time and memory (`span / 4` bytes) stay bounded.
const DIFFERENCE_OPS_PER_STEP: u64 = 128;

/// Largest difference-set search in any case (bit operations), and largest span it covers
/// (its table takes `span / 4` bytes).
const DIFFERENCE_MAX_OPS: u64 = 1 << 28;
const DIFFERENCE_MAX_SPAN: u64 = 1 << 26;

thread_local! {
    /// Search steps left for the whole expression being evaluated, if one is.
    static EXPRESSION_STEPS: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with one budget of [`INJECTIVITY_SEARCH_STEPS`] shared by every bounded
/// injectivity search inside it: an `eval` expression that nests many products (each
/// checks three layouts) stays as bounded as a single search.
pub(crate) fn sharing_search_steps<T>(f: impl FnOnce() -> T) -> T {
    let outer = EXPRESSION_STEPS.replace(Some(INJECTIVITY_SEARCH_STEPS));
    let r = f();
    EXPRESSION_STEPS.set(outer);
    r
}

/// The smaller limit used only to choose between two reasons for an error the caller
/// already has ("not injective" over "modes do not chain"): such errors stay immediate.
const REFINE_STEPS: u64 = 1 << 12;

/// Decides injectivity of positive-stride leaves (extents > 1), without allocating
/// unless a search is needed.
///
/// Arguments, applied until none fits: equal strides collide; a common factor of all
/// strides divides out; the largest stride beyond the span of all the others cannot
/// collide (peel it); the smallest leaf whose whole span divides every other stride cannot
/// collide (peel it); two leaves collide exactly when [`pair_collides`]. What remains (three
/// or more interleaved leaves) is searched: a difference-set bitset when its cost is at
/// most `steps * DIFFERENCE_OPS_PER_STEP` (and [`DIFFERENCE_MAX_OPS`]; time `O(span * sum of extents)`), otherwise a pruned
/// depth-first search for a non-zero `x` with `sum x_i d_i == 0`, `|x_i| < s_i`, which
/// gives up with [`Undecided`] after `steps` nodes (its worst case is exponential). The
/// work done is deducted from `steps`.
fn injective_positive(mut leaves: &mut [(u64, u64)], steps: &mut u64) -> Result<bool, Undecided> {
    loop {
        if leaves.len() <= 1 {
            return Ok(true);
        }
        leaves.sort_unstable_by_key(|&(s, d)| (d, s));
        if leaves.windows(2).any(|w| w[0].1 == w[1].1) {
            return Ok(false);
        }
        let g = leaves.iter().fold(0, |g, &(_, d)| gcd(g, d));
        for l in leaves.iter_mut() {
            l.1 /= g;
        }
        let n = leaves.len();
        if leaves[n - 1].1 > span(&leaves[..n - 1]) {
            leaves = &mut leaves[..n - 1];
            continue;
        }
        let (s0, d0) = leaves[0];
        let block = s0.checked_mul(d0);
        if block.is_some_and(|b| leaves[1..].iter().all(|&(_, d)| d.is_multiple_of(b))) {
            leaves = &mut leaves[1..];
            continue;
        }
        if n == 2 {
            return Ok(!pair_collides(leaves[0], leaves[1]));
        }
        for i in 0..n {
            for j in i + 1..n {
                if pair_collides(leaves[i], leaves[j]) {
                    return Ok(false);
                }
            }
        }
        let total = span(leaves);
        let extents: u64 = leaves.iter().map(|&(s, _)| s).sum();
        let diff_cost = total.saturating_mul(2).saturating_mul(extents);
        let diff_limit = steps
            .saturating_mul(DIFFERENCE_OPS_PER_STEP)
            .min(DIFFERENCE_MAX_OPS);
        if total <= DIFFERENCE_MAX_SPAN && diff_cost <= diff_limit {
            *steps -= diff_cost / DIFFERENCE_OPS_PER_STEP;
            return Ok(difference_search(leaves, total));
        }
        return zero_sum_exists(leaves, steps).map(|found| !found);
    }
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

/// Whether some non-zero `x` with `|x_i| < s_i` has `sum x_i d_i == 0`: a depth-first
/// search over the leaves by decreasing stride, keeping only partial sums the remaining
/// leaves can still cancel (by span and by their common divisor), the two leaves of
/// largest extent left for last and solved in closed form (so they are never
/// enumerated). [`Undecided`] after `steps` nodes.
fn zero_sum_exists(leaves: &[(u64, u64)], steps: &mut u64) -> Result<bool, Undecided> {
    let mut by_stride: Vec<(u64, u64)> = leaves.to_vec();
    by_stride.sort_unstable_by_key(|&(_, d)| std::cmp::Reverse(d));
    let n = by_stride.len();
    for end in (n.saturating_sub(2)..n).rev() {
        // move the widest leaf not yet placed to `end`, the others keep their order
        let widest = (0..=end)
            .max_by_key(|&i| (by_stride[i].0, i))
            .unwrap_or(end);
        let leaf = by_stride.remove(widest);
        by_stride.insert(end, leaf);
    }
    let mut rest_span = vec![0i128; n + 1];
    let mut rest_gcd = vec![0u64; n + 1];
    for i in (0..n).rev() {
        let (s, d) = by_stride[i];
        rest_span[i] = rest_span[i + 1] + (s as i128 - 1) * d as i128;
        rest_gcd[i] = gcd(rest_gcd[i + 1], d);
    }
    let search = Search {
        leaves: &by_stride,
        span: &rest_span,
        gcd: &rest_gcd,
        last_two: (n >= 2).then(|| TwoLeaves::new(by_stride[n - 2], by_stride[n - 1])),
    };
    search.dfs(0, 0, false, steps)
}

/// The fixed data of one [`zero_sum_exists`] search.
struct Search<'a> {
    leaves: &'a [(u64, u64)],
    span: &'a [i128],
    gcd: &'a [u64],
    last_two: Option<TwoLeaves>,
}

impl Search<'_> {
    fn dfs(&self, i: usize, r: i128, nonzero: bool, left: &mut u64) -> Result<bool, Undecided> {
        *left = left.checked_sub(1).ok_or(Undecided)?;
        let l = self.leaves;
        if i == l.len() {
            return Ok(nonzero && r == 0);
        }
        if i + 2 == l.len() {
            if let Some(found) = self.last_two.as_ref().and_then(|t| t.solve(r, nonzero)) {
                return Ok(found);
            }
        }
        let (s, d) = (l[i].0 as i128, l[i].1 as i128);
        let lim = self.span[i + 1];
        // x with |r + x*d| <= lim, |x| < s, and (first non-zero x positive, by symmetry)
        let lo = (-lim - r).div_euclid(d) + i128::from((-lim - r).rem_euclid(d) != 0);
        let hi = (lim - r).div_euclid(d);
        let lo = lo.max(if nonzero { -(s - 1) } else { 0 });
        let hi = hi.min(s - 1);
        let gr = self.gcd[i + 1] as i128;
        let mut x = lo;
        while x <= hi {
            let nr = r + x * d;
            let divisible = gr == 0 || nr.rem_euclid(gr) == 0;
            if divisible && self.dfs(i + 1, nr, nonzero || x != 0, left)? {
                return Ok(true);
            }
            x += 1;
        }
        Ok(false)
    }
}

/// `gcd(a, b)` with Bezout coefficients: `p*a + q*b == g`.
fn ext_gcd(a: i128, b: i128) -> (i128, i128, i128) {
    if b == 0 {
        (a, 1, 0)
    } else {
        let (g, p, q) = ext_gcd(b, a.rem_euclid(b));
        (g, q, p - a.div_euclid(b) * q)
    }
}

/// The last two leaves `(sa, da)`, `(sb, db)` of a search, with what their closed form
/// needs computed once: `g = gcd(da, db)` and a Bezout coefficient `p` (`p*da ≡ g` mod `db`).
struct TwoLeaves {
    sa: i128,
    da: i128,
    sb: i128,
    db: i128,
    g: i128,
    p_mod_m: u128,
}

impl TwoLeaves {
    fn new((sa, da): (u64, u64), (sb, db): (u64, u64)) -> Self {
        let (da, db) = (da as i128, db as i128);
        let (g, p, _) = ext_gcd(da, db);
        TwoLeaves {
            sa: sa as i128 - 1,
            da,
            sb: sb as i128 - 1,
            db,
            g,
            p_mod_m: p.rem_euclid(db / g) as u128,
        }
    }

    /// Whether `r + x*da + y*db == 0` has a solution with `|x| < sa`, `|y| < sb` (other
    /// than `x = y = 0` unless `nonzero`), solved in closed form: the solutions are one
    /// line `(x0 + k*db/g, y0 - k*da/g)`, so it is a question of whether a range of `k` is
    /// empty. `None` when the closed form would overflow `i128` (the caller then
    /// enumerates).
    fn solve(&self, r: i128, nonzero: bool) -> Option<bool> {
        let TwoLeaves {
            sa,
            da,
            sb,
            db,
            g,
            p_mod_m,
        } = *self;
        if r.rem_euclid(g) != 0 {
            return Some(false);
        }
        let t = -r / g;
        let (m, n) = (db / g, da / g);
        // x0 = p*t mod m, computed in u128 to avoid the overflow of p*t
        let x0 = (p_mod_m * t.rem_euclid(m) as u128 % m as u128) as i128;
        let y0 = (-r).checked_sub(x0.checked_mul(da)?)? / db;
        let floor = |a: i128, b: i128| a.div_euclid(b);
        let ceil = |a: i128, b: i128| -(-a).div_euclid(b);
        let lo = ceil(-sa - x0, m).max(ceil(y0 - sb, n));
        let hi = floor(sa - x0, m).min(floor(y0 + sb, n));
        if lo > hi {
            return Some(false);
        }
        if nonzero || r != 0 {
            return Some(true);
        }
        // r == 0: k = 0 is the trivial solution; any other k in range is a collision
        Some(lo < 0 || hi > 0)
    }
}

impl Layout {
    /// True exactly when distinct coordinates map to distinct indices.
    ///
    /// Decided structurally for ordinary layouts (stride-0 modes, equal strides, stride
    /// chains from the top and from the bottom, common factors), so layouts of size 2^40
    /// answer at once; only an irreducible overlapping core (three or more interleaved
    /// leaves) is searched. That search has no work limit here, and for many leaves with
    /// large unrelated strides it can take minutes: for layouts from untrusted input use
    /// [`Layout::try_is_injective`], which is never slow and says when it did not decide.
    ///
    /// ```
    /// let inj = |s: &str| s.parse::<strideweave::Layout>().unwrap().is_injective();
    /// assert!(inj("(2,3):(1,4)"));
    /// assert!(!inj("(4,2):(0,1)"));
    /// assert!(!inj("(4,2):(1,1)"));
    /// ```
    pub fn is_injective(&self) -> bool {
        self.injective_within(&mut { u64::MAX })
            .expect("a search of u64::MAX steps always finishes first")
    }

    /// [`Layout::is_injective`] with its search bounded by [`INJECTIVITY_SEARCH_STEPS`]:
    /// the exact answer, or, past the limit, a value error saying the question was not
    /// decided ([`CoreError::InjectivityUndecided`](crate::CoreError)); never a wrong
    /// answer, and well under a second for any layout. `eval`, `show` and the algebra's
    /// checks use this.
    ///
    /// ```
    /// let l: strideweave::Layout = "(4,4,4):(5,7,9)".parse().unwrap();
    /// assert!(!l.try_is_injective().unwrap()); // 5 + 9 == 7 + 7
    /// let hard: strideweave::Layout =
    ///     "(200,200,200,200,200):(10406554519053007,17776936092483503,16108260561629991,13051932357995809,18058164728632727)"
    ///         .parse().unwrap();
    /// let e = hard.try_is_injective().unwrap_err();
    /// assert!(e.to_string().contains("not decided"), "{e}");
    /// ```
    pub fn try_is_injective(&self) -> Result<bool, LayoutError> {
        self.bounded_injective(INJECTIVITY_SEARCH_STEPS)
            .map_err(|Undecided| {
                LayoutError::from_core(
                    format!("is_injective({self})"),
                    CoreError::InjectivityUndecided {
                        steps: INJECTIVITY_SEARCH_STEPS,
                    },
                )
            })
    }

    /// Whether a short search proves a collision: how errors pick "not injective" over
    /// the cheaper reason they already have (an undecided search keeps that reason, which
    /// is true too), so that such errors are immediate.
    pub(crate) fn provably_not_injective(&self) -> bool {
        self.bounded_injective(REFINE_STEPS) == Ok(false)
    }

    /// Injectivity with a search of at most `limit` steps, drawn from the budget of the
    /// expression being evaluated when there is one (see [`sharing_search_steps`]).
    pub(crate) fn bounded_injective(&self, limit: u64) -> Result<bool, Undecided> {
        let shared = EXPRESSION_STEPS.get();
        let mut left = shared.map_or(limit, |s| s.min(limit));
        let start = left;
        let r = self.injective_within(&mut left);
        if let Some(s) = shared {
            EXPRESSION_STEPS.set(Some(s - (start - left)));
        }
        r
    }

    /// Injectivity with a search of at most `*steps` steps, less the work done.
    fn injective_within(&self, steps: &mut u64) -> Result<bool, Undecided> {
        let (mut leaves, n) = live_leaves(self);
        if leaves[..n].iter().any(|&(_, d)| d == 0) || self.cosize() < self.size() {
            return Ok(false);
        }
        injective_positive(&mut leaves[..n], steps)
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
        let (leaves, count) = live_leaves(self);
        let mut chain = [(0u64, 0u64); MAX_LEAVES];
        let mut m = 0;
        for &(s, d) in &leaves[..count] {
            if d == 0 {
                k = k.checked_mul(s)?;
            } else {
                chain[m] = (s, d);
                m += 1;
            }
        }
        let chain = &mut chain[..m];
        chain.sort_unstable_by_key(|&(s, d)| (d, s));
        let mut expect = 1u64;
        for &mut (s, d) in chain {
            if d != expect {
                return None;
            }
            expect = expect.checked_mul(s)?;
        }
        (expect == n).then_some(k)
    }
}
