//! The one conversion routine every kernel uses: a grid of rows of pixels, each pixel a
//! run of channels cut into groups of `slots` (one group per tile the pixel spans), read
//! in one memory format and written in another, converting every element from `S` to `D`
//! (bit-exact with `half`, see [`convert`](crate::tensor::convert)).
//!
//! Cast (one pixel, one group), CastTess (tile rows: pixels whose channel groups go to
//! the channel tiles, padded to `slots` with zeros) and CastUntess (the same, read back)
//! all reduce to [`convert_grid`]. Each instruction-set path converts 16-lane blocks:
//! AVX-512 with masked loads and stores for the partial block at a group's end (groups of
//! whole blocks take an unmasked fast path, `grid_whole`; strided channels of
//! consecutive pixels against tiled pixels are a register transpose, `transposed`),
//! AVX2/F16C with 8-lane blocks and a narrow tail through a stack buffer (and an 8x8
//! transpose for the same strided channels), and a portable scalar loop, the reference
//! the vector paths are tested against.

use super::cache::{l1_ways, prefetch_lines};
use crate::tensor::convert::{cvt, ConvertPath, Elem};
use crate::tensor::dtype::DType;

/// Where the elements of one channel group lie, relative to the group's first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fmt {
    /// Little-endian elements `stride` bytes apart.
    Elements(usize),
    /// BF16 byte planes: the low byte of element `k` at `k`, its high byte at `plane + k`.
    Planes(usize),
}

/// One side of a row: bytes between consecutive pixels, between consecutive channel
/// groups of a pixel, and the format inside a group; `ahead`, when the run's tensors
/// stream from memory, the bytes past each row at which the row walks ask for this
/// side's lines ([`Ahead`], [`ahead_bytes`]; 0: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Side {
    pub pixel: usize,
    pub group: usize,
    pub fmt: Fmt,
    pub ahead: usize,
}

impl Side {
    /// A single run of elements `stride` bytes apart.
    pub fn run(stride: usize) -> Side {
        Side {
            pixel: 0,
            group: 0,
            fmt: Fmt::Elements(stride),
            ahead: 0,
        }
    }
}

/// W tiles past a row at which the row walks ask for a streaming side's lines. On Zen 5,
/// one tile ahead was up to 1.3x slower than two, and four up to 1.3x; a fixed 2 KiB
/// (two W tiles of 1x4x4x16 F32 pixels, but inside the same tile for (4,4) blocks of
/// three channel blocks) was 1.4x to 1.8x slower into and out of (4,4) blocks, and the
/// same elsewhere (55 cells of 23 to 103 MB, 1.01x geomean).
const AHEAD_TILES: usize = 2;

/// A side's `ahead` for a run that streams (else 0): [`AHEAD_TILES`] steps of
/// `tile_step`, the side's bytes from a W tile to the next.
pub(crate) fn ahead_bytes(streams: bool, tile_step: usize) -> usize {
    if streams {
        AHEAD_TILES.saturating_mul(tile_step)
    } else {
        0
    }
}

/// The shape of a row: `npix` pixels of `valid` logical channels, cut into groups of
/// `slots` channels (`ceil(valid / slots)` groups). Group `g` converts its
/// `min(slots, valid - g * slots)` channels; with `pad` it also writes the rest of its
/// `slots` as zero bits (a tile's channel padding), else nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Row {
    pub npix: usize,
    pub valid: usize,
    pub slots: usize,
    pub pad: bool,
}

impl Row {
    /// A plain run of `n` elements (one pixel, one group).
    pub fn run(n: usize) -> Row {
        Row {
            npix: 1,
            valid: n,
            slots: n,
            pad: false,
        }
    }

    /// Asked many times per grid: a row of one group (few channels) skips the division,
    /// 2% to 4% of a small tensor's CastTess or CastUntess (`f32[2,9,9,5]`, 0.75 us), and
    /// tile pixels (8, 16 or 32 slots) shift instead (`f16[2,13,11,40]` into 1x4x4x16
    /// tiles and `bf16[2,13,11,40]` into (4,4) blocks: 0.97x to 0.98x the time).
    #[inline]
    fn groups(&self) -> usize {
        if self.valid <= self.slots {
            1
        } else if self.slots.is_power_of_two() {
            ((self.valid - 1) >> self.slots.trailing_zeros()) + 1
        } else {
            self.valid.div_ceil(self.slots)
        }
    }

    /// Elements converted (`.0`) and slots written (`.1`) in group `g`.
    #[inline(always)]
    fn group(&self, g: usize) -> (usize, usize) {
        let nv = self.slots.min(self.valid - g * self.slots);
        (nv, if self.pad { self.slots } else { nv })
    }
}

/// Up to three outer loops around a row: `(count, source step, destination step)` in
/// bytes, outermost first. A row of tiles is one grid: tiles along W, then each tile's
/// pixel rows along D and H.
pub(crate) type Grid = [(usize, usize, usize); 3];

/// The grid of a single row.
pub(crate) const ONE_ROW: Grid = [(1, 0, 0), (1, 0, 0), (1, 0, 0)];

/// Bytes a group of `n >= 1` elements of width `w` spans in `fmt`; `None` on overflow or
/// when byte planes would overlap (`n > plane`) or the width is not 2.
fn group_extent(fmt: Fmt, n: usize, w: usize) -> Option<usize> {
    match fmt {
        Fmt::Elements(st) => (n - 1).checked_mul(st)?.checked_add(w),
        Fmt::Planes(plane) if w == 2 && n <= plane => plane.checked_add(n),
        Fmt::Planes(_) => None,
    }
}

/// Bytes a whole grid spans on one side (`dst`: the written slots and destination
/// steps), or `None` when it overflows or consecutive groups would overlap.
fn grid_extent(grid: &Grid, row: &Row, dst: bool, side: Side, w: usize) -> Option<usize> {
    // A byte-plane source group is read whole (its `plane` slots on each plane: the
    // pixel of a tile, always complete in its buffer), so the vector paths may load a
    // plane's bytes past the converted elements; the destination, its written slots.
    let count = |g| {
        let (nv, ns) = row.group(g);
        match side.fmt {
            _ if dst => ns,
            Fmt::Planes(plane) => plane,
            Fmt::Elements(_) => nv,
        }
    };
    let last = row.groups() - 1;
    if last > 0 && side.group < group_extent(side.fmt, row.slots, w)? {
        return None;
    }
    // Groups do not overlap, so the last one ends furthest (or the first, if alone).
    let group_end = last
        .checked_mul(side.group)?
        .checked_add(group_extent(side.fmt, count(last), w)?)?
        .max(group_extent(side.fmt, count(0), w)?);
    let mut end = (row.npix - 1)
        .checked_mul(side.pixel)?
        .checked_add(group_end)?;
    for &(n, ss, ds) in grid {
        end = end.checked_add((n - 1).checked_mul(if dst { ds } else { ss })?)?;
    }
    Some(end)
}

/// Converts one row (see [`Row`]) from `src` to `dst` with `path`.
pub(crate) fn convert_row<S: Elem, D: Elem>(
    path: ConvertPath,
    src: &[u8],
    s: Side,
    dst: &mut [u8],
    d: Side,
    row: Row,
) {
    convert_grid::<S, D>(path, src, s, dst, d, row, ONE_ROW);
}

/// Converts a grid of rows (see [`Grid`], [`Row`]) from `src` to `dst` with `path`.
///
/// Callers pass offsets that admission and the placement maps prove in bounds; a grid
/// that would reach outside either slice is a bug in the caller and panics here (before
/// any access), never undefined behaviour. An unavailable `path` runs the portable code.
pub(crate) fn convert_grid<S: Elem, D: Elem>(
    path: ConvertPath,
    src: &[u8],
    s: Side,
    dst: &mut [u8],
    d: Side,
    row: Row,
    grid: Grid,
) {
    // SAFETY: `dst` is an exclusive borrow of `dst.len()` writable bytes that nothing
    // else accesses during the call.
    unsafe { convert_grid_raw::<S, D>(path, src, s, dst.as_mut_ptr(), dst.len(), d, row, grid) }
}

/// [`convert_grid`] into a destination given by pointer, for kernels whose parallel
/// parts write disjoint pieces (tiles) of one buffer. Panics, before any access, when the
/// grid reaches outside `src` or `dst_len`.
///
/// # Safety
/// `dst` is valid for writes of `dst_len` bytes, and during the call no one else reads
/// or writes the destination slots this grid writes (other bytes of the buffer may be
/// in use by other threads).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn convert_grid_raw<S: Elem, D: Elem>(
    path: ConvertPath,
    src: &[u8],
    s: Side,
    dst: *mut u8,
    dst_len: usize,
    d: Side,
    row: Row,
    grid: Grid,
) {
    if row.npix == 0 || row.valid == 0 || grid.iter().any(|g| g.0 == 0) {
        return;
    }
    let src_end = grid_extent(&grid, &row, false, s, S::W);
    let dst_end = grid_extent(&grid, &row, true, d, D::W);
    assert!(
        src_end.is_some_and(|e| e <= src.len()) && dst_end.is_some_and(|e| e <= dst_len),
        "convert_grid: a row reaches outside its buffer"
    );
    // Some paths read whole vectors past a partial group where the source goes on.
    let src_end = src.as_ptr_range().end;
    let (row, grid, s, d) = fold_grid(row, grid, s, d);
    let (one_slot, grid, s, d) = one_slot_groups_as_channels::<S, D>(row, grid, s, d);
    let mut row = one_slot.unwrap_or(row);
    if let Some(k) = one_slot.and_then(|r| channel_slices(&r, d)) {
        // Slices of `k` channels, each over the whole grid (see `channel_slices`).
        let stride = |x: Side| match x.fmt {
            Fmt::Elements(st) => st,
            Fmt::Planes(_) => x.group,
        };
        for c0 in (0..row.valid).step_by(k) {
            let n = k.min(row.valid - c0);
            let slice = Row {
                valid: n,
                slots: n,
                ..row
            };
            // SAFETY: a slice's channels are channels `c0..c0 + n` of the checked grid's
            // one group, at the same bytes; the caller's contract as below.
            unsafe {
                run_grid::<S, D>(
                    path,
                    src.as_ptr().wrapping_add(c0 * stride(s)),
                    src_end,
                    s,
                    dst.wrapping_add(c0 * stride(d)),
                    d,
                    slice,
                    grid,
                )
            };
        }
        return;
    }
    // Pixels that follow each other densely on both sides are one long run.
    if row.groups() == 1
        && row.valid == row.slots
        && s.fmt == Fmt::Elements(S::W)
        && d.fmt == Fmt::Elements(D::W)
        && s.pixel == row.valid * S::W
        && d.pixel == row.slots * D::W
    {
        row = Row::run(row.npix * row.valid);
    }
    // Long runs whose length is not a multiple of 16: the whole blocks, then the rest.
    if let (true, Fmt::Elements(ss), Fmt::Elements(ds)) = (long_ragged_run(&row), s.fmt, d.fmt) {
        let whole = row.valid - row.valid % 16;
        let part = |n| Row {
            npix: row.npix,
            ..Row::run(n)
        };
        // SAFETY: the first part's elements and slots are the run's first `whole`, the
        // second's the others, `whole` elements further on each side: all inside the
        // checked grid.
        unsafe {
            run_grid::<S, D>(path, src.as_ptr(), src_end, s, dst, d, part(whole), grid);
            let (sp, dp) = (src.as_ptr().add(whole * ss), dst.add(whole * ds));
            run_grid::<S, D>(path, sp, src_end, s, dp, d, part(row.valid - whole), grid);
        }
        return;
    }
    // SAFETY: the assert above proved every group's source elements and destination
    // slots lie inside `src` and the `dst_len` bytes at `dst`, which the caller lets us
    // write.
    unsafe { run_grid::<S, D>(path, src.as_ptr(), src_end, s, dst, d, row, grid) }
}

/// Runs at least this long whose length is not a multiple of 16 are converted as their
/// whole 16-element blocks and then the rest ([`long_ragged_run`]).
const RAGGED_RUN_MIN: usize = 2048;

/// Whether `row` is a run of one group (no padding) of at least [`RAGGED_RUN_MIN`]
/// elements, not a multiple of 16: the vector paths' fixed-block walk takes whole
/// multiples of 16 only, and the general group plan, a block at a time with its format
/// checks, took 2.5x as long (a contiguous F16 Cast of 89,900 elements 8.3 us, of
/// 90,112 elements 3.3 us; `[1,57,55,40]` is 125,400).
fn long_ragged_run(row: &Row) -> bool {
    row.groups() == 1
        && row.valid == row.slots
        && !row.pad
        && row.valid >= RAGGED_RUN_MIN
        && !row.valid.is_multiple_of(16)
}

/// Runs a checked grid on `path` (the portable code when the CPU lacks it).
///
/// # Safety
/// Every group of `row` over `grid` lies inside the source at `src` and the writable
/// destination at `dst` (as `convert_grid_raw` asserts), no one else accesses the
/// written slots, and source and written destination do not overlap; every byte from
/// `src` to `src_end` (the source buffer's end, which some paths read up to) is readable.
#[allow(clippy::too_many_arguments)]
unsafe fn run_grid<S: Elem, D: Elem>(
    path: ConvertPath,
    src: *const u8,
    src_end: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    row: Row,
    grid: Grid,
) {
    // Byte planes hold BF16 only (placements and tensors make them for BF16 alone); the
    // vector paths instantiate their byte-plane variants for BF16 alone (`by_fmts`).
    let planes_ok = |f: Fmt, t: DType| !matches!(f, Fmt::Planes(_)) || t == DType::BF16;
    let path = if path.is_available() && planes_ok(s.fmt, S::DTYPE) && planes_ok(d.fmt, D::DTYPE) {
        path
    } else {
        ConvertPath::Portable
    };
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_available` detected AVX2 + F16C (the callee's features); the assert
        // above proved every group's source elements and destination slots lie inside
        // `src` and the `dst_len` bytes at `dst`, which the caller lets us write
        // (a shared source and a written destination do not overlap: the caller's
        // contract gives us exclusive access to the written slots).
        ConvertPath::Avx2F16c => unsafe {
            x86::avx2::grid::<S, D>(src, s, dst, d, row, grid, src_end)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `is_available` detected AVX-512 F/BW/VL/DQ/BF16/VBMI (the callee's features);
        // bounds and access as above.
        ConvertPath::Avx512Bf16 => unsafe {
            x86::avx512::grid::<S, D>(src, s, dst, d, row, grid, src_end)
        },
        // SAFETY: bounds and access as above.
        _ => unsafe { portable_grid::<S, D>(src, s, dst, d, row, grid) },
    }
}

/// `row`, `grid` and the sides with grid levels joined to the row, innermost first: a
/// level of `n` steps of exactly `npix` pixels on each side continues the row's pixels
/// (a row of `n * npix` pixels), and a row of one pixel takes the innermost level as its
/// pixels (steps as pixel strides). Tiles one pixel high (`[1,100,100,2]` into 1x1x1x32
/// tiles: rows of one pixel) become one long row, which the paths that pack several
/// pixels per vector can take; the loop of one-pixel rows cost about 11 cycles a pixel.
/// The same pixels in the same order; levels keep their places (some paths read the
/// W-tile level from `grid[0]`).
fn fold_grid(mut row: Row, mut grid: Grid, mut s: Side, mut d: Side) -> (Row, Grid, Side, Side) {
    while let Some(i) = grid.iter().rposition(|l| l.0 > 1) {
        let (count, ss, ds) = grid[i];
        if row.npix == 1 {
            (s.pixel, d.pixel) = (ss, ds);
        } else if row.npix.checked_mul(s.pixel) != Some(ss)
            || row.npix.checked_mul(d.pixel) != Some(ds)
        {
            break;
        }
        match row.npix.checked_mul(count) {
            Some(npix) => row.npix = npix,
            None => break,
        }
        grid[i] = (1, 0, 0);
    }
    (row, grid, s, d)
}

/// A row of one-slot groups (tiles of one channel slot: each channel its own channel
/// tile) as one group of all its channels, `group` bytes apart on each side: the same
/// elements at the same bytes (a one-slot BF16 byte-plane group is a little-endian
/// element), but a shape the vector paths transpose 16 pixels by 16 channels at a time.
/// Returns the new row, or `None` (and the grid and sides unchanged) when the row is
/// not such a row. As groups, every element was a masked load and store of its own: `f32[2,13,8,128]`
/// into 1x8x16x1 tiles took 28x the contiguous Cast. A grid level that continues the
/// row's pixels on the tiled side (a tile's H rows, when its channel body is dense)
/// moves to the front, where the transposes join it to the row: in tiles narrower than
/// 16 pixels, a chunk then takes pixels of several H rows.
fn one_slot_groups_as_channels<S: Elem, D: Elem>(
    row: Row,
    mut grid: Grid,
    s: Side,
    d: Side,
) -> (Option<Row>, Grid, Side, Side) {
    // Only where a transpose takes it: one side's pixels single elements. (Elsewhere, one
    // element per tile, e.g. 16-bit tiles of one slot aligned to 4, it measured up to 3x
    // slower than the groups.)
    // A one-slot group in BF16 byte planes of more than one slot (a plane of 8 from the
    // DSL's converting copies) has its high byte a plane away: not an element.
    let element = |x: Side| matches!(x.fmt, Fmt::Elements(_) | Fmt::Planes(1));
    if row.slots != 1
        || row.valid < 2
        || (s.pixel != S::W && d.pixel != D::W)
        || !element(s)
        || !element(d)
    {
        return (None, grid, s, d);
    }
    let as_channels = |x: Side| Side {
        fmt: Fmt::Elements(x.group),
        ..x
    };
    // On a side whose pixels are single elements (the tiled side of one-slot pixels).
    let dense =
        |x: Side, w: usize, step: usize| x.pixel == w && row.npix.checked_mul(w) == Some(step);
    let continues =
        |(n, ss, ds): (usize, usize, usize)| n > 1 && (dense(s, S::W, ss) || dense(d, D::W, ds));
    let joined = grid.iter().rposition(|&l| continues(l));
    // Pixels the transposes take in one run; in runs of a few pixels of few channels,
    // the per-element groups were up to 4x faster (`f32[2,14,56,2]` from 1x1x4x1 tiles
    // with gaps); over 16 channels or more, runs from 2 pixels are faster transposed
    // (`f16[3,17,7,257]` into 1x8x8x1 tiles: runs of 7, 3.5x).
    let run = joined.map_or(row.npix, |i| row.npix.saturating_mul(grid[i].0));
    if run < ONE_SLOT_MIN_RUN && !(run >= 2 && row.valid >= 16) {
        return (None, grid, s, d);
    }
    if let Some(i) = joined {
        grid[..=i].rotate_right(1);
    }
    let row = Row {
        slots: row.valid,
        pad: false,
        ..row
    };
    (Some(row), grid, as_channels(s), as_channels(d))
}

/// Channels per slice of a regrouped one-slot row whose destination channel tiles lie a
/// multiple of [`GROUP_OUTER_ALIASED`] bytes apart, or `None` to run it whole. The
/// transposes store a chunk's pixels of every channel before the next chunk; with the
/// channels 8 KiB apart, 40 of them fill one L1 set and evict each other's half-written
/// lines (`f16[1,57,55,40]` into 1x8x16x1 tiles: 41.7 us, 16.8 us in slices). A slice
/// of 8 channels over the whole grid stays within the set's ways; the source is read
/// once per slice. Reading aliased tiles (CastUntess) needs no slices: there they were
/// 2x slower, each slice writing part of every destination pixel's line.
fn channel_slices(row: &Row, d: Side) -> Option<usize> {
    const SLICE: usize = 8;
    let aliased = matches!(d.fmt, Fmt::Elements(st) if st.is_multiple_of(GROUP_OUTER_ALIASED));
    (row.valid > SLICE && aliased).then_some(SLICE)
}

/// The shortest run of pixels for which [`one_slot_groups_as_channels`] regroups a row.
const ONE_SLOT_MIN_RUN: usize = 8;

/// Zeros `len` bytes at each of `count` places `step` bytes apart from the start of
/// `buf` (the alignment gaps of consecutive tiles), in one pass.
pub(crate) fn zero_strided(buf: &mut [u8], count: usize, step: usize, len: usize) {
    if count == 0 || len == 0 {
        return;
    }
    let end = (count - 1)
        .checked_mul(step)
        .and_then(|x| x.checked_add(len));
    assert!(
        end.is_some_and(|e| e <= buf.len()) && len <= step,
        "zero_strided: a piece reaches outside its buffer"
    );
    // SAFETY: every piece lies inside `buf` (asserted), which we borrow exclusively.
    unsafe { zero_grid(buf.as_mut_ptr(), [count, 1], [step, 0], len) }
}

/// Zeros `len` bytes at every `a * steps[0] + b * steps[1]` bytes from `p` (`a <
/// counts[0]`, `b < counts[1]`), in one pass: the missing pixels of a column of edge
/// tiles, one channel tile after another, without a call per tile or per pixel row.
///
/// # Safety
/// Every piece is valid for writes and, during the call, no one else reads or writes it.
#[inline(never)]
pub(crate) unsafe fn zero_grid(p: *mut u8, counts: [usize; 2], steps: [usize; 2], len: usize) {
    #[cfg(target_arch = "x86_64")]
    if ConvertPath::Avx512Bf16.is_available() {
        // SAFETY: AVX-512 F/BW detected; the pieces are writable (contract).
        return unsafe { x86::avx512::zero_grid(p, counts, steps, len) };
    }
    // SAFETY: as above.
    unsafe { zero_grid_portable(p, counts, steps, len) }
}

/// [`zero_grid`] without vector stores (kept out of line: it is the rare case).
///
/// # Safety
/// As for [`zero_grid`].
#[inline(never)]
unsafe fn zero_grid_portable(p: *mut u8, counts: [usize; 2], steps: [usize; 2], len: usize) {
    for a in 0..counts[0] {
        for b in 0..counts[1] {
            // SAFETY: piece (a, b) is writable (contract).
            unsafe { zero_piece(p.add(a * steps[0] + b * steps[1]), len) };
        }
    }
}

/// Zeros `len` bytes at `p`: pieces of up to 128 bytes by a few overlapping unaligned
/// stores in line, longer ones by `write_bytes`. The missing pixels of edge tiles are
/// thousands of pieces of 32 to 96 bytes, and a `memset` call each took a quarter of
/// CastTess `f16[1,7,7,2048]` into 1x4x4x16 tiles. No loops here: the compiler would
/// turn a loop of zero stores back into a `memset` call.
///
/// # Safety
/// The `len` bytes at `p` are writable.
#[inline(always)]
unsafe fn zero_piece(p: *mut u8, len: usize) {
    /// Zero stores of `N` bytes at `p + a` and `p + b`.
    #[inline(always)]
    unsafe fn two<const N: usize>(p: *mut u8, a: usize, b: usize) {
        // SAFETY: the caller's: both pieces lie inside the bytes being zeroed.
        unsafe {
            p.add(a).cast::<[u8; N]>().write_unaligned([0; N]);
            p.add(b).cast::<[u8; N]>().write_unaligned([0; N]);
        }
    }
    // SAFETY: every store lies in `p .. p + len` (each arm's bounds), writable (contract).
    unsafe {
        match len {
            0 => {}
            1 => p.write(0),
            2..=3 => two::<2>(p, 0, len - 2),
            4..=7 => two::<4>(p, 0, len - 4),
            8..=15 => two::<8>(p, 0, len - 8),
            16..=32 => two::<16>(p, 0, len - 16),
            33..=64 => {
                two::<16>(p, 0, 16);
                two::<16>(p, len - 32, len - 16);
            }
            65..=128 => {
                two::<32>(p, 0, 32);
                two::<32>(p, len - 64, len - 32);
            }
            _ => p.write_bytes(0, len),
        }
    }
}

/// Reads element `k` of the group at `p`.
///
/// # Safety
/// The element's bytes are readable.
#[inline(always)]
unsafe fn read<S: Elem>(p: *const u8, fmt: Fmt, k: usize) -> u32 {
    // SAFETY: per the contract the element's bytes are readable; unaligned reads of
    // little-endian values.
    unsafe {
        match fmt {
            Fmt::Elements(st) if S::W == 4 => {
                u32::from_le_bytes(p.add(k * st).cast::<[u8; 4]>().read_unaligned())
            }
            Fmt::Elements(st) => u32::from(u16::from_le_bytes(
                p.add(k * st).cast::<[u8; 2]>().read_unaligned(),
            )),
            Fmt::Planes(pl) => u32::from(p.add(k).read()) | (u32::from(p.add(pl + k).read()) << 8),
        }
    }
}

/// Writes element `k` of the group at `p`.
///
/// # Safety
/// The element's bytes are writable.
#[inline(always)]
unsafe fn write<D: Elem>(p: *mut u8, fmt: Fmt, k: usize, bits: u32) {
    // SAFETY: per the contract the element's bytes are writable; unaligned writes.
    unsafe {
        match fmt {
            Fmt::Elements(st) if D::W == 4 => p
                .add(k * st)
                .cast::<[u8; 4]>()
                .write_unaligned(bits.to_le_bytes()),
            Fmt::Elements(st) => p
                .add(k * st)
                .cast::<[u8; 2]>()
                .write_unaligned((bits as u16).to_le_bytes()),
            Fmt::Planes(pl) => {
                p.add(k).write(bits as u8);
                p.add(pl + k).write((bits >> 8) as u8);
            }
        }
    }
}

/// Rows spanning more bytes than this are not asked for: the hardware prefetchers
/// follow long runs by themselves.
const AHEAD_MAX_ROW: usize = 8192;

/// Fewest channel groups a pixel has for the walks to prefetch. With one, the hardware
/// follows the streams (a tile row's rows on one side, one channel tile on the other)
/// by itself: on Zen 5 the prefetches measured 1.0x for `f32[4,224,224,16]` into
/// 1x4x4x16 tiles and 1.15x slower for `f32[8,160,160,12]`. From two, 14 cells of 23 to
/// 50 MB took 0.77x the time (geomean; 0.45x to 1.2x), CastUntess of
/// `bf16[4,224,224,32]` out of 1x4x4x16 tiles 0.64x.
const AHEAD_MIN_GROUPS: usize = 2;

/// What a row walk asks for ahead of each row on one side of a streaming run: the lines
/// of `spans` runs of `len` bytes, `stride` apart, `dist` (the side's `ahead`) past the
/// row's own.
/// A walk over a tile row interleaves more streams than the hardware prefetchers follow
/// (each group's channel tile on the tiled side, each of the tile's H rows on the
/// other): on Zen 5, for tensors past the last-level cache, CastTess of
/// `f32[8,112,112,64]` into BF16 1x4x4x16 tiles ran at 2.3x the time of the contiguous
/// Cast, and CastUntess at 2.1x; asking for the next rows' lines took them to 1.0x and
/// 0.9x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ahead {
    spans: usize,
    stride: usize,
    len: usize,
    dist: usize,
}

impl Ahead {
    const NONE: Ahead = Ahead {
        spans: 0,
        stride: 0,
        len: 0,
        dist: 0,
    };

    /// The runs of a row of `r` on side `x` (elements of `w` bytes), when `x` streams,
    /// its pixels have at least [`AHEAD_MIN_GROUPS`] groups, and the row is dense: a
    /// run of whole pixels, or one run per group (a tile's pixels in each group plane).
    fn of(x: Side, r: Row, w: usize) -> Ahead {
        let groups = r.groups();
        if x.ahead == 0 || groups < AHEAD_MIN_GROUPS {
            return Ahead::NONE;
        }
        let group_bytes = match x.fmt {
            Fmt::Elements(st) if st == w => r.slots * w,
            Fmt::Planes(plane) => 2 * plane,
            Fmt::Elements(_) => return Ahead::NONE,
        };
        let row = r.npix.saturating_mul(group_bytes);
        let a = if x.group == group_bytes && x.pixel <= groups * group_bytes {
            Ahead {
                spans: 1,
                stride: 0,
                len: r.npix.saturating_mul(x.pixel),
                dist: x.ahead,
            }
        } else if x.pixel == group_bytes && x.group >= row {
            Ahead {
                spans: groups,
                stride: x.group,
                len: row,
                dist: x.ahead,
            }
        } else {
            return Ahead::NONE;
        };
        if a.spans.saturating_mul(a.len) > AHEAD_MAX_ROW {
            return Ahead::NONE;
        }
        a
    }

    /// Asks for the lines `dist` past the row at `p` (hints: they may point past the
    /// buffer and are never dereferenced).
    #[inline(always)]
    fn row(&self, p: *const u8) {
        for k in 0..self.spans {
            prefetch_lines(p.wrapping_add(k * self.stride + self.dist), self.len);
        }
    }
}

/// Calls `f(src row, dst row)` for the first pixel of every row of the grid, outermost
/// loop first. Pointers advance by addition.
///
/// # Safety
/// The grid's rows lie inside the buffers at `src` and `dst` (as `convert_grid_raw`
/// asserts), so the pointers passed to `f` are in bounds.
#[inline(always)]
unsafe fn for_each_row(
    src: *const u8,
    dst: *mut u8,
    g: Grid,
    mut f: impl FnMut(*const u8, *mut u8),
) {
    // `wrapping_add` keeps the pointer arithmetic defined even for the step past the
    // last row, which is never dereferenced.
    let (mut sa, mut da) = (src, dst);
    for _ in 0..g[0].0 {
        let (mut si, mut di) = (sa, da);
        for _ in 0..g[1].0 {
            let (mut sj, mut dj) = (si, di);
            for _ in 0..g[2].0 {
                f(sj, dj);
                sj = sj.wrapping_add(g[2].1);
                dj = dj.wrapping_add(g[2].2);
            }
            si = si.wrapping_add(g[1].1);
            di = di.wrapping_add(g[1].2);
        }
        sa = sa.wrapping_add(g[0].1);
        da = da.wrapping_add(g[0].2);
    }
}

/// Calls `full(src, dst)` for each of the `chunks` chunks of every row of the grid
/// (`steps` bytes apart on each side), then `rest(src, dst)` at the end of the row, and
/// with `ahead` prefetches each chunk's source that many bytes ahead: the chunk loop of
/// the few-channel paths, which pass a constant chunk shape where rows split evenly.
///
/// # Safety
/// As for [`for_each_row`]; `full` and `rest` may be called at any of those offsets.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn for_each_chunk(
    src: *const u8,
    dst: *mut u8,
    g: Grid,
    chunks: usize,
    (sstep, dstep): (usize, usize),
    ahead: Option<usize>,
    mut full: impl FnMut(*const u8, *mut u8),
    mut rest: impl FnMut(*const u8, *mut u8),
) {
    // SAFETY: same contract.
    unsafe {
        for_each_row(src, dst, g, |sr, dr| {
            let (mut sp, mut dp) = (sr, dr);
            for _ in 0..chunks {
                if let Some(a) = ahead {
                    prefetch_lines(sp.wrapping_add(a), sstep);
                }
                full(sp, dp);
                sp = sp.wrapping_add(sstep);
                dp = dp.wrapping_add(dstep);
            }
            rest(sp, dp);
        })
    }
}

/// Calls `f(src group, dst group, converted, written)` for every group of every pixel of
/// every row of the grid, in memory order of the source. Pointers advance by addition;
/// every group but a pixel's last is full (`slots` converted and written).
///
/// # Safety
/// The grid's groups lie inside the buffers at `src` and `dst` (as `convert_grid_raw`
/// asserts), so the pointers passed to `f` are in bounds.
#[inline(always)]
unsafe fn for_each_group<S: Elem, D: Elem>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
    mut f: impl FnMut(*const u8, *mut u8, usize, usize),
) {
    let full_groups = r.groups() - 1;
    let (nv_last, ns_last) = r.group(full_groups);
    let (s_ahead, d_ahead) = (Ahead::of(s, r, S::W), Ahead::of(d, r, D::W));
    // `wrapping_add` keeps the pointer arithmetic defined even for the step past the
    // last row or pixel, which is never dereferenced.
    let (mut sa, mut da) = (src, dst);
    for _ in 0..g[0].0 {
        let (mut si, mut di) = (sa, da);
        for _ in 0..g[1].0 {
            let (mut sj, mut dj) = (si, di);
            for _ in 0..g[2].0 {
                s_ahead.row(sj);
                d_ahead.row(dj);
                let (mut sp, mut dp) = (sj, dj);
                for _ in 0..r.npix {
                    let (mut sg, mut dg) = (sp, dp);
                    for _ in 0..full_groups {
                        f(sg, dg, r.slots, r.slots);
                        sg = sg.wrapping_add(s.group);
                        dg = dg.wrapping_add(d.group);
                    }
                    f(sg, dg, nv_last, ns_last);
                    sp = sp.wrapping_add(s.pixel);
                    dp = dp.wrapping_add(d.pixel);
                }
                sj = sj.wrapping_add(g[2].1);
                dj = dj.wrapping_add(g[2].2);
            }
            si = si.wrapping_add(g[1].1);
            di = di.wrapping_add(g[1].2);
        }
        sa = sa.wrapping_add(g[0].1);
        da = da.wrapping_add(g[0].2);
    }
}

/// Rows with at least this many channel groups per pixel (and more than one pixel) are
/// walked group by group (every pixel of the row in group 0, then in group 1, ..)
/// instead of pixel by pixel. The groups of a pixel lie a channel tile apart, often a
/// multiple of 2 or 4 KiB (`[1,32,32,256]` into 1x4x4x16 tiles: 32 KiB), so a
/// pixel-by-pixel walk touches many lines of one L1 set in turn and evicts them before
/// the next pixel fills their other halves; group by group, one side is sequential. The
/// AVX-512 paths' whole and planned groups walk group by group only where the groups do
/// crowd a set ([`groups_crowd_l1`]): on Zen 4 pixel by pixel was faster elsewhere.
const GROUP_OUTER_MIN: usize = 4;

/// Rows walked group by group are cut into pieces that put at most this many of a
/// group's lines into one L1 set before the next group completes them: pixels 4 KiB apart
/// (`f16[1,8,8,2048]`) all fall into one set, 512 bytes apart into 8 sets, and a row of
/// 64 of them (tiles one pixel high join into long rows) left 64 half-written lines in
/// one set: CastUntess from 1x1x8x16 tiles took 43 us, 4.5 us cut at 8 pixels (4 per
/// set: 1.1 to 1.5x slower than 8; 16: 2 to 3x); `f16[1,16,16,256]` (8 sets, pieces of
/// 64 pixels) 7.3 -> 2.4 us.
const GROUP_OUTER_PIXELS: usize = 8;

/// Source pixels a multiple of this many bytes apart fall into at most four L1 sets
/// (see [`over_grid`]).
const GROUP_OUTER_ALIASED: usize = 1024;

/// Source lines a copy (same element width) takes per pixel per row in [`over_grid`]'s
/// walk when the source pixels alias: a row of one line's worth of groups visits each
/// destination tile's channel tile for only a few hundred bytes before the next, and
/// longer runs per visit measured faster on the Intel machine (`[1,7,7,2048]` into
/// 1x4x4x16 tiles: BF16 byte planes 23 -> 12 us, F16 0.8x; `[1,8,8,2048]` BF16 0.45x;
/// `f32[1,14,14,1024]` into 1x4x4x8 tiles 0.85x; 8 lines sat between 1 and 16).
/// Widening conversions keep one line: 16 measured 1.05 to 1.15x slower.
const GROUP_OUTER_COPY_LINES: usize = 16;

/// Grids of at most this many channel slots are candidates for [`over_grid`].
const OVER_GRID_SLOTS: usize = 1 << 17;

/// Rows of at most this many pixels are candidates for [`over_grid`]: a row of a few
/// pixels, walked group by group, writes a few hundred bytes of each channel tile before
/// it jumps to the next (rows of 7 or 8 pixels measured 10% slower over the grid).
const OVER_GRID_PIXELS: usize = 4;

/// Grids that [`over_grid`] would split along their outermost level are split only for
/// pixels of at least this many full groups, whose row walk puts that many lines into
/// one L1 set per row: with 8 groups the row walk was 1.2 to 1.4x faster (`[1,64,64,64]`
/// into 1x4x4x8 tiles), with 16 or more the split walk 1.4 to 2.8x (`[1,32,32,128]`,
/// `[1,16,16,256]`); 12 measured even.
const OVER_GRID_SPLIT_GROUPS: usize = 16;

/// Destination groups a multiple of this many bytes apart are candidates for
/// [`over_grid`]: the groups of a pixel then fall into one or two L1 sets (4 KiB apart
/// is one set). MlaCBlocked tiles of the same pixels lie one tile (1 KiB or less) apart
/// and measured 1.1 to 1.4x slower over the grid (`[1,7,7,2048]` into (4,4) blocks).
const OVER_GRID_STRIDE: usize = 2048;

/// Bytes in a cache line.
const LINE: usize = 64;

/// How [`over_grid`] walks a grid: its full channel groups as the grid's outermost level
/// (the returned grid, and the groups per row), or first one call per step of the outermost
/// level (`Split`), when the grid has no level free for the groups or holds too many
/// slots for its source to stay in L1 across groups.
#[derive(Debug, Clone, Copy, PartialEq)]
enum OverGrid {
    Groups(Grid, usize),
    Split,
}

/// The grid of `r`'s full channel groups, group by group over the whole grid (the
/// groups an outer grid level, each row one group), when that is the better walk: a
/// tiled destination is then written tile by tile in storage order. A few large-channel
/// pixels (`[1,7,7,2048]` into 1x4x4x16 tiles: four spatial tiles whose channel tiles
/// lie 2 or 4 KiB apart), walked row by row, stall on stores into lines of one L1 set;
/// so do many rows whose channel tiles lie 8 KiB apart (`[1,16,16,256]` into 1x4x4x8
/// tiles: 2.8x slower row by row). Only where it measured faster: destination groups a
/// multiple of [`OVER_GRID_STRIDE`] bytes apart, rows of at most [`OVER_GRID_PIXELS`]
/// pixels, into the side whose groups lie further apart (a tiled source: up to 3x
/// slower), for conversions that only move or widen elements (narrowing ones, busier
/// per block, 1.1 to 1.2x slower). A grid of more than [`OVER_GRID_SLOTS`] slots
/// (`[8,28,28,257]`: up to 1.5x slower in one piece) or with no level free for the
/// groups is split along its outermost level first. When the source pixels lie a
/// multiple of [`GROUP_OUTER_ALIASED`] bytes apart, a group's pixels share a few L1 sets
/// and a line of them would be read again for every group it holds, so each row takes a
/// line's worth of groups instead of one (`[1,14,14,1024]` into 1x4x4x8 tiles: f16 1.5x,
/// f32 1.7x faster; `[1,8,8,2048]` into 1x4x4x16 tiles, 16-bit: 1.3x), and copies
/// [`GROUP_OUTER_COPY_LINES`] lines' worth.
fn over_grid<S: Elem, D: Elem>(s: Side, d: Side, r: Row, g: Grid) -> Option<OverGrid> {
    let full = r.valid / r.slots;
    let fits = full >= GROUP_OUTER_MIN
        && (2..=OVER_GRID_PIXELS).contains(&r.npix)
        && d.group > s.group
        && d.group.is_multiple_of(OVER_GRID_STRIDE)
        && (D::W == 4 || S::DTYPE == D::DTYPE);
    if !fits {
        return None;
    }
    let slots = g
        .iter()
        .fold(r.npix, |a, l| a.saturating_mul(l.0))
        .saturating_mul(r.groups())
        .saturating_mul(r.slots);
    let free = g.iter().position(|l| l.0 == 1);
    let Some(free) = free.filter(|_| slots <= OVER_GRID_SLOTS) else {
        let many = full >= OVER_GRID_SPLIT_GROUPS;
        return (g[0].0 > 1 && many).then_some(OverGrid::Split);
    };
    // Groups per row: a source line's worth when the source pixels alias, so each line
    // is read whole while it is in L1 (copies: several lines, see
    // [`GROUP_OUTER_COPY_LINES`]).
    let chunk = r.slots * S::W;
    let lines = if S::W == D::W {
        GROUP_OUTER_COPY_LINES
    } else {
        1
    };
    let per = if s.pixel.is_multiple_of(GROUP_OUTER_ALIASED) && chunk < LINE {
        (lines * LINE / chunk).min(full)
    } else {
        1
    };
    // The levels in their order after the groups' (a free one dropped).
    let mut out = [
        (full / per, per * s.group, per * d.group),
        (1, 0, 0),
        (1, 0, 0),
    ];
    let mut k = 1;
    for (i, &level) in g.iter().enumerate() {
        if i != free {
            out[k] = level;
            k += 1;
        }
    }
    Some(OverGrid::Groups(out, per))
}

/// Runs the grid by [`over_grid`]'s walk when that is the better one and says whether it
/// did: `part(src, dst, grid)` converts a part of the grid (rows `r`), `groups(src, dst,
/// row, grid)` a grid of one-group rows (the full groups over the grid, then the last
/// ones). Shared by the vector paths, which pass their own walks.
///
/// # Safety
/// As for the paths' `grid`: every group of `r` over `g` in bounds, no overlap; `part`
/// and `groups` may be called with any sub-grid of it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn run_over_grid<S: Elem, D: Elem>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
    part: impl Fn(*const u8, *mut u8, Grid),
    groups: impl Fn(*const u8, *mut u8, Row, Grid),
) -> bool {
    match over_grid::<S, D>(s, d, r, g) {
        None => false,
        Some(OverGrid::Split) => {
            let (n, ss, ds) = g[0];
            for i in 0..n {
                // SAFETY: step `i < n` of the outermost level starts inside the grid.
                let (sp, dp) = unsafe { (src.add(i * ss), dst.add(i * ds)) };
                part(sp, dp, [(1, 0, 0), g[1], g[2]]);
            }
            true
        }
        Some(OverGrid::Groups(outer, k)) => {
            let full = outer[0].0 * k;
            groups(
                src,
                dst,
                Row {
                    valid: k * r.slots,
                    ..r
                },
                outer,
            );
            let rest = r.valid - full * r.slots;
            if rest > 0 {
                // SAFETY: the last group of each pixel starts `full` groups in.
                let (sg, dg) = unsafe { (src.add(full * s.group), dst.add(full * d.group)) };
                groups(sg, dg, Row { valid: rest, ..r }, g);
            }
            true
        }
    }
}

/// The most pixels of a row that a group-by-group walk takes per group before the next
/// group: [`GROUP_OUTER_PIXELS`] for each of the L1 sets (64 of 64-byte lines, 4 KiB a
/// way) that pixels `s.pixel` and `d.pixel` bytes apart spread over.
fn row_piece(s: Side, d: Side) -> usize {
    GROUP_OUTER_PIXELS * l1_sets(s.pixel).min(l1_sets(d.pixel))
}

/// The L1 sets (64 of 64-byte lines, 4 KiB a way) that addresses `step` bytes apart
/// fall into: all 64 unless `step` is a multiple of a line, one for multiples of 4 KiB.
fn l1_sets(step: usize) -> usize {
    (4096 >> step.trailing_zeros().min(12)).min(64)
}

/// Whether the channel groups of one pixel crowd an L1 set: on either side they put at
/// least as many lines into one set as it has ways ([`l1_ways`]), so a pixel-by-pixel
/// walk evicts lines before the next pixel fills the rest of them (see
/// [`GROUP_OUTER_MIN`]).
fn groups_crowd_l1<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
    let per_set = |x: Side, w: usize| {
        let lines = (r.slots * w).div_ceil(LINE);
        r.groups().saturating_mul(lines).div_ceil(l1_sets(x.group))
    };
    per_set(s, S::W).max(per_set(d, D::W)) >= l1_ways()
}

/// Calls `f(src, dst, last, n)` for every group of every row of the grid, group by group
/// (`last`: the pixel's last group), `P` pixels per call (`n`; fewer at a row's or
/// piece's end), in pieces of [`row_piece`] pixels: every pixel of a piece in group 0,
/// then in group 1, ... (see [`GROUP_OUTER_MIN`]). Each group of each pixel is visited
/// exactly once. Rows of 4 or 8 pixels in one piece take [`group_walk`] with that count
/// as a constant, and so do rows of 3 in pairs (a 4-pixel tile's partial last W tile:
/// `f16[16,7,7,40]` into 1x4x4x16 tiles 0.82x the time, `[1,13,11,40]` 0.91x; the
/// walks of one or four pixels a call gained nothing measurable, and would grow).
///
/// # Safety
/// As for [`for_each_group`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn for_each_group_by<S: Elem, D: Elem, const P: usize>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
    f: impl FnMut(*const u8, *mut u8, bool, usize),
) {
    let most = row_piece(s, d).next_multiple_of(P);
    // SAFETY: same contract; a constant `N` is the row's pixel count, within one piece.
    unsafe {
        match r.npix {
            3 if P == 2 && most >= 3 => group_walk::<S, D, P, 3>(src, s, dst, d, r, g, most, f),
            4 if most >= 4 => group_walk::<S, D, P, 4>(src, s, dst, d, r, g, most, f),
            8 if most >= 8 => group_walk::<S, D, P, 8>(src, s, dst, d, r, g, most, f),
            _ => group_walk::<S, D, P, 0>(src, s, dst, d, r, g, most, f),
        }
    }
}

/// The walk of [`for_each_group_by`] in pieces of `most` pixels; with `N > 0`, rows of
/// exactly `N` pixels in one piece, so the pixel loop is a compile-time count. A run-time
/// loop of a few pixels (or blocks) innermost measured 1.5x to 2x slower on the Intel
/// machine than the same moves unrolled (`f16[1,56,56,64]` into 1x4x4x16 tiles, pixel
/// pairs: 23 -> 15.5 us), as if each of its exits stalled.
///
/// # Safety
/// As for [`for_each_group`]; with `N > 0`, `r.npix == N <= most`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn group_walk<S: Elem, D: Elem, const P: usize, const N: usize>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
    most: usize,
    mut f: impl FnMut(*const u8, *mut u8, bool, usize),
) {
    let full_groups = r.groups() - 1;
    let (s_ahead, d_ahead) = (Ahead::of(s, r, S::W), Ahead::of(d, r, D::W));
    // SAFETY: the walks only compute pointers; `f` receives in-bounds groups (contract).
    unsafe {
        for_each_row(src, dst, g, |sj, dj| {
            s_ahead.row(sj);
            d_ahead.row(dj);
            let (mut sc, mut dc) = (sj, dj);
            let mut left = if N > 0 { N } else { r.npix };
            while left > 0 {
                let n = if N > 0 { N } else { left.min(most) };
                let (mut sg, mut dg) = (sc, dc);
                for gi in 0..=full_groups {
                    let last = gi == full_groups;
                    let (mut sp, mut dp) = (sg, dg);
                    for _ in 0..n / P {
                        f(sp, dp, last, P);
                        sp = sp.wrapping_add(P * s.pixel);
                        dp = dp.wrapping_add(P * d.pixel);
                    }
                    if !n.is_multiple_of(P) {
                        f(sp, dp, last, n % P);
                    }
                    sg = sg.wrapping_add(s.group);
                    dg = dg.wrapping_add(d.group);
                }
                left -= n;
                sc = sc.wrapping_add(n * s.pixel);
                dc = dc.wrapping_add(n * d.pixel);
            }
        })
    }
}

/// Calls `f(src group, dst group, last)` for every group of every pixel of every row of
/// the grid (`last`: the pixel's last group, else a full one); pixel by pixel or, with
/// `by_group`, group by group within each row ([`for_each_group_by`]). Each group is
/// visited exactly once either way.
///
/// # Safety
/// As for [`for_each_group`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn for_each_group_ordered<S: Elem, D: Elem>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
    by_group: bool,
    mut f: impl FnMut(*const u8, *mut u8, bool),
) {
    let full_groups = r.groups() - 1;
    let (s_ahead, d_ahead) = (Ahead::of(s, r, S::W), Ahead::of(d, r, D::W));
    // SAFETY: the walks only compute pointers; `f` receives in-bounds groups (contract).
    unsafe {
        if !by_group {
            for_each_row(src, dst, g, |sj, dj| {
                s_ahead.row(sj);
                d_ahead.row(dj);
                let (mut sp, mut dp) = (sj, dj);
                for _ in 0..r.npix {
                    let (mut sg, mut dg) = (sp, dp);
                    for _ in 0..full_groups {
                        f(sg, dg, false);
                        sg = sg.wrapping_add(s.group);
                        dg = dg.wrapping_add(d.group);
                    }
                    f(sg, dg, true);
                    sp = sp.wrapping_add(s.pixel);
                    dp = dp.wrapping_add(d.pixel);
                }
            });
            return;
        }
        for_each_group_by::<S, D, 1>(src, s, dst, d, r, g, |sp, dp, last, _| f(sp, dp, last))
    }
}

/// The portable path, and the reference every vector path is tested against.
///
/// # Safety
/// As for the vector paths: the grid lies inside both buffers; no overlap.
unsafe fn portable_grid<S: Elem, D: Elem>(
    src: *const u8,
    s: Side,
    dst: *mut u8,
    d: Side,
    r: Row,
    g: Grid,
) {
    // SAFETY: every group is in bounds (contract); elements k < nv are readable and
    // slots k < ns writable.
    unsafe {
        for_each_group::<S, D>(src, s, dst, d, r, g, |sp, dp, nv, ns| {
            for k in 0..ns {
                let bits = if k < nv {
                    cvt::<S, D>(read::<S>(sp, s.fmt, k))
                } else {
                    0
                };
                write::<D>(dp, d.fmt, k, bits);
            }
        })
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{
        for_each_chunk, for_each_group, for_each_group_by, for_each_group_ordered, for_each_row,
        groups_crowd_l1, read, run_over_grid, write, Elem, Fmt, Grid, Row, Side, GROUP_OUTER_MIN,
    };
    use crate::tensor::dtype::DType;

    /// Formats a block loads or stores directly: contiguous elements or byte planes.
    #[inline(always)]
    fn direct<E: Elem>(f: Fmt) -> bool {
        f == Fmt::Elements(E::W) || matches!(f, Fmt::Planes(_))
    }

    /// Runs `$f::<S, D, SP, DP>(args)` with `SP`/`DP` the byte-plane variants of
    /// `s.fmt`/`d.fmt` as compile-time constants. Byte planes hold BF16 only (`run_grid`
    /// sends any other to the portable path), so the plane variants of other element
    /// types sit under a false constant and are never compiled: a third of the
    /// instances, and of the build time of these paths.
    macro_rules! by_fmts {
        ($f:ident, $s:expr, $d:expr, ($($arg:expr),*)) => {{
            let sp = matches!($s.fmt, Fmt::Planes(_));
            let dp = matches!($d.fmt, Fmt::Planes(_));
            if const { bf16::<S>() && bf16::<D>() } && sp && dp {
                $f::<S, D, true, true>($($arg),*)
            } else if const { bf16::<S>() } && sp {
                $f::<S, D, true, false>($($arg),*)
            } else if const { bf16::<D>() } && dp {
                $f::<S, D, false, true>($($arg),*)
            } else {
                $f::<S, D, false, false>($($arg),*)
            }
        }};
    }

    /// Whether `E` is BF16, the one type byte planes hold.
    const fn bf16<E: Elem>() -> bool {
        matches!(E::DTYPE, DType::BF16)
    }

    /// Runs `$f::<S, D, TC, TESS, PL>(args)` with the row's slots (2 or 4), the
    /// direction `$tess` and whether the tiled side is BF16 byte planes as constants.
    macro_rules! by_units {
        ($f:ident, $r:expr, $tess:expr, $s:expr, $d:expr, ($($arg:expr),*)) => {{
            let tiled = if $tess { $d.fmt } else { $s.fmt };
            match ($r.slots == 2, $tess, matches!(tiled, Fmt::Planes(_))) {
                (true, true, true) => $f::<S, D, 2, true, true>($($arg),*),
                (true, true, false) => $f::<S, D, 2, true, false>($($arg),*),
                (true, false, true) => $f::<S, D, 2, false, true>($($arg),*),
                (true, false, false) => $f::<S, D, 2, false, false>($($arg),*),
                (false, true, true) => $f::<S, D, 4, true, true>($($arg),*),
                (false, true, false) => $f::<S, D, 4, true, false>($($arg),*),
                (false, false, true) => $f::<S, D, 4, false, true>($($arg),*),
                (false, false, false) => $f::<S, D, 4, false, false>($($arg),*),
            }
        }};
    }

    /// The format of one side with its variant fixed at compile time (`planes`), for the
    /// paths monomorphized per format variant.
    #[inline(always)]
    fn fixed<E: Elem>(f: Fmt, planes: bool) -> Fmt {
        match f {
            Fmt::Planes(pl) if planes => Fmt::Planes(pl),
            _ => Fmt::Elements(E::W),
        }
    }

    /// [`fixed`] with the plane size a constant too, `N` slots (the caller checked
    /// [`planes_of`]): the loads and stores of a run-time plane size kept every format's
    /// code in the group loops, with its pointers and tests (see `grid_whole`).
    #[inline(always)]
    fn fixed_n<E: Elem, const N: usize>(planes: bool) -> Fmt {
        if planes {
            Fmt::Planes(N)
        } else {
            Fmt::Elements(E::W)
        }
    }

    /// Whether the byte-plane sides of a `sp`/`dp` variant hold planes of `n` slots,
    /// so [`fixed_n`] gives their formats.
    fn planes_of(s: Fmt, d: Fmt, sp: bool, dp: bool, n: usize) -> bool {
        (!sp || s == Fmt::Planes(n)) && (!dp || d == Fmt::Planes(n))
    }

    /// The pixel runs of a transposed grid (`transposed` of a vector path with
    /// `lanes` lanes, 8 or 16): `len` consecutive elements on the strided side per row
    /// of `rows`, taken in chunks of `chunk <= lanes` pixels that start at a W-tile
    /// boundary (or, in tiles of at least `lanes` pixels, every `lanes` pixels of one
    /// tile), so every chunk has the same direct-side shape: its pixel `i` lies
    /// `base[i]` bytes after the chunk's first, and chunks are `cstep` bytes apart
    /// there.
    struct Runs {
        rows: Grid,
        len: usize,
        chunk: usize,
        base: [usize; 16],
        cstep: usize,
    }

    impl Runs {
        /// The runs of `g` when the strided side's W-tile step is `wstep` and its
        /// elements `w` wide, and the direct side's pixels are `pixel` bytes apart
        /// and its W tiles `tstep`: one run per row, or per row of W tiles when the
        /// pixels continue from tile to tile (`wstep == npix * w`) and a tile row
        /// is narrower than a chunk. Offsets past the grid are computed with
        /// wrapping arithmetic and never used.
        fn new(
            r: Row,
            g: Grid,
            (wstep, w): (usize, usize),
            (pixel, tstep): (usize, usize),
            lanes: usize,
        ) -> Runs {
            let npix = r.npix;
            let merged = g[0]
                .0
                .checked_mul(npix)
                .filter(|_| g[0].0 > 1 && npix < lanes && npix.checked_mul(w) == Some(wstep));
            let (rows, len) = match merged {
                Some(len) => ([(1, 0, 0), g[1], g[2]], len),
                None => (g, npix),
            };
            if npix >= lanes {
                return Runs {
                    rows,
                    len,
                    chunk: lanes,
                    base: std::array::from_fn(|i| i.wrapping_mul(pixel)),
                    cstep: pixel.wrapping_mul(lanes),
                };
            }
            let per = lanes / npix;
            // Pixel `i` of a chunk: `i / npix` tiles and `i % npix` pixels in.
            let mut base = [0usize; 16];
            let (mut tile, mut px, mut j) = (0usize, 0usize, 0);
            for b in base.iter_mut() {
                *b = tile.wrapping_add(px);
                (px, j) = (px.wrapping_add(pixel), j + 1);
                if j == npix {
                    (tile, px, j) = (tile.wrapping_add(tstep), 0, 0);
                }
            }
            Runs {
                rows,
                len,
                chunk: per * npix,
                base,
                cstep: per.wrapping_mul(tstep),
            }
        }
    }

    impl Runs {
        /// Calls `f(sg, dg, p0, toff, nv, ns)` for every chunk of every channel group of
        /// every row of the runs: `sg`/`dg` the group's first bytes on each side
        /// (`sgroup`/`dgroup` bytes per group), `p0` the chunk's first pixel of the run,
        /// `toff` its offset on the direct (tiled) side (`p0 / chunk * cstep`), `nv`/`ns`
        /// the group's converted elements and written slots. The transposes' walk,
        /// shared by both directions and both instruction sets.
        ///
        /// # Safety
        /// As for [`for_each_row`]: the rows lie inside the buffers.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn for_each_chunk(
            &self,
            src: *const u8,
            sgroup: usize,
            dst: *mut u8,
            dgroup: usize,
            r: Row,
            mut f: impl FnMut(*const u8, *mut u8, usize, usize, usize, usize),
        ) {
            let last = r.groups() - 1;
            // SAFETY: pointers only computed here (wrapping), `f` gets in-bounds rows.
            unsafe {
                for_each_row(src, dst, self.rows, |sr, dr| {
                    for gi in 0..=last {
                        let (nv, ns) = r.group(gi);
                        let sg = sr.wrapping_add(gi * sgroup);
                        let dg = dr.wrapping_add(gi * dgroup);
                        let (mut p0, mut toff) = (0, 0);
                        while p0 < self.len {
                            f(sg, dg, p0, toff, nv, ns);
                            p0 += self.chunk;
                            toff = toff.wrapping_add(self.cstep);
                        }
                    }
                })
            }
        }
    }

    /// Whether the vector paths' `units` take the row, and in which direction (`true`: CastTess, the
    /// destination tiled): pixels cut into groups of 2 or 4 slots, a tile's pixels
    /// one after another on the tiled side (elements, or BF16 byte planes of the
    /// group), the other side's channels dense, groups one after another.
    fn units_fit<S: Elem, D: Elem>(s: Side, d: Side, r: Row, g: &Grid) -> Option<bool> {
        let tc = r.slots;
        if !matches!(tc, 2 | 4) || r.groups() < 2 {
            return None;
        }
        let tiled = |x: Side, w: usize| {
            x.pixel == tc * w
                && match x.fmt {
                    Fmt::Elements(e) => e == w,
                    Fmt::Planes(pl) => w == 2 && pl == tc,
                }
        };
        let flat = |x: Side, w: usize| x.fmt == Fmt::Elements(w) && x.group == tc * w;
        let tess = if r.pad && tiled(d, D::W) && flat(s, S::W) {
            true
        } else if !r.pad && tiled(s, S::W) && flat(d, D::W) {
            false
        } else {
            return None;
        };
        // Runs shorter than a chunk of few groups measured up to 1.5x slower than the
        // group walk (`f16[1,5,56,64,24]` from 1x1x2x4 tiles aligned to 128: two
        // pixels a run, 6 groups); with 8 groups or more they are faster
        // (`bf16[1,112,5,20]` into 1x2x16x2 tiles: runs of 5, 2.2x).
        let t = if tess { d } else { s };
        let len = units_run(r, g, t.pixel, tess).1;
        (len >= 16 / tc || (len >= 2 && r.groups() >= 8)).then_some(tess)
    }

    /// The run of pixels `units` takes per row: `(joined level, pixels, flat-side
    /// step of the joined level)`, where a level that continues the row's pixels on
    /// the tiled side (pixels `t_pixel` apart) joins the row.
    fn units_run(r: Row, g: &Grid, t_pixel: usize, tess: bool) -> (Option<usize>, usize, usize) {
        let t_step = |l: (usize, usize, usize)| if tess { l.2 } else { l.1 };
        let f_step = |l: (usize, usize, usize)| if tess { l.1 } else { l.2 };
        let joined = g
            .iter()
            .rposition(|&l| l.0 > 1 && r.npix.checked_mul(t_pixel) == Some(t_step(l)));
        match joined {
            Some(i) => (joined, g[i].0.saturating_mul(r.npix), f_step(g[i])),
            None => (None, r.npix, 0),
        }
    }

    /// `vpshufb` indices turning each `tc`-element group of 16-bit lanes into BF16
    /// byte planes (its `tc` low bytes, then its `tc` high bytes) within 128-bit
    /// lanes (`inverse`: back).
    const fn small_planes_idx(tc: usize, inverse: bool) -> [u8; 64] {
        let mut a = [0u8; 64];
        let mut b = 0;
        while b < 64 {
            let (base, k) = (b - b % (2 * tc), b % (2 * tc));
            // Plane order: byte k < tc is element k's low byte, k >= tc its high one.
            let from = if inverse {
                if k % 2 == 0 {
                    k / 2
                } else {
                    tc + k / 2
                }
            } else if k < tc {
                2 * k
            } else {
                2 * (k - tc) + 1
            };
            a[b] = (base + from) as u8;
            b += 1;
        }
        a
    }

    /// The walk of the unit transposes (`units` of each instruction set): for every row of
    /// `g` (a level continuing the row's pixels on the tiled side `t` joined to it, see
    /// `units_run`), calls `block(tiled, flat, off, n, b)` for every chunk of `n <= p_max`
    /// (at most 8) pixels and block `b < nb` of channels: `tiled` the chunk's first pixel
    /// on the tiled side, `flat` the row's start on the flat side `f` and `off` the
    /// chunk's pixels' offsets from it. Chunk by chunk (every block of a chunk, then the
    /// next chunk) or, with `pieces`, in pieces of [`UNITS_PIECE`] pixels block by block.
    ///
    /// # Safety
    /// The grid's rows lie inside the buffers at `src` and `dst`.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    unsafe fn for_each_unit_chunk(
        src: *const u8,
        dst: *mut u8,
        (r, g, t, f, p_max, nb, pieces): (Row, Grid, Side, Side, usize, usize, bool),
        tess: bool,
        mut block: impl FnMut(*mut u8, *mut u8, &[usize; 8], usize, usize),
    ) {
        let mut g = g;
        let (joined, len, row_step) = units_run(r, &g, t.pixel, tess);
        if let Some(i) = joined {
            g[i] = (1, 0, 0);
        }
        // SAFETY: the walk only computes pointers (wrapping); `block` gets the rows'.
        unsafe {
            for_each_row(src, dst, g, |sr, dr| {
                // The tiled and flat sides' row starts (read through, or written).
                let (tb, fb) = if tess {
                    (dr, sr.cast_mut())
                } else {
                    (sr.cast_mut(), dr)
                };
                // The flat offset of each next pixel of the run.
                let (mut rb, mut j) = (0usize, 0usize);
                let mut next = || {
                    let o = rb + j * f.pixel;
                    j += 1;
                    if j == r.npix {
                        (rb, j) = (rb + row_step, 0);
                    }
                    o
                };
                let mut q0 = 0;
                if !pieces {
                    while q0 < len {
                        let n = (len - q0).min(p_max);
                        let mut off = [0usize; 8];
                        off.iter_mut().take(n).for_each(|o| *o = next());
                        for b in 0..nb {
                            block(tb.wrapping_add(q0 * t.pixel), fb, &off, n, b);
                        }
                        q0 += n;
                    }
                    return;
                }
                let mut offs = [0usize; UNITS_PIECE];
                while q0 < len {
                    let piece = (len - q0).min(UNITS_PIECE);
                    offs.iter_mut().take(piece).for_each(|o| *o = next());
                    for b in 0..nb {
                        for p0 in (0..piece).step_by(p_max) {
                            let n = (piece - p0).min(p_max);
                            let off = std::array::from_fn(|i| offs[(p0 + i).min(UNITS_PIECE - 1)]);
                            block(tb.wrapping_add((q0 + p0) * t.pixel), fb, &off, n, b);
                        }
                    }
                    q0 += piece;
                }
            })
        }
    }

    /// Pixels of a run that `units` converts block of channels by block when the
    /// tiled groups lie a multiple of [`GROUP_OUTER_ALIASED`](super::GROUP_OUTER_ALIASED) bytes apart: the groups
    /// of a block take the piece's pixels in one stream each, while the piece's flat
    /// pixels stay in L1 for the next block. Chunk by chunk over all blocks, the
    /// groups of 512 channels in tiles 4 KiB apart wrote 128 lines of one L1 set per
    /// chunk (`f16[3,64,8,512]` into 1x1x2x4 tiles: 260 us against 45 us).
    const UNITS_PIECE: usize = 64;

    pub(super) mod avx512 {
        use super::avx2::{grid_groups16, groups16_fit};
        use super::*;
        use crate::tensor::kernels::cache::prefetch_lines;
        use crate::tensor::kernels::transpose::{transpose16, transpose_units};
        use std::arch::x86_64::*;

        /// # Safety
        /// AVX-512 F/BW/VL/DQ/BF16/VBMI available; every group's `nv` source elements readable
        /// and `ns` destination slots writable, as laid out by `s`, `d`, `r`, `g`; no
        /// overlap between source and destination; the bytes from `src` to `src_end`
        /// (the source buffer's end) readable.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        pub unsafe fn grid<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            src_end: *const u8,
        ) {
            if let Some(tess) = units_fit::<S, D>(s, d, r, &g) {
                // SAFETY: same contract; `units_fit` checked the layout, and the macro
                // passes the row's slots, direction and tiled format as the constants.
                return unsafe { by_units!(units, r, tess, s, d, (src, s, dst, d, r, g)) };
            }
            if !direct::<S>(s.fmt) || !direct::<D>(d.fmt) {
                // SAFETY: same contract; `transposed` checks its own conditions.
                unsafe {
                    if !transposed::<S, D>(src, s, dst, d, r, g)
                        && !grid_narrow::<S, D>(src, s, dst, d, r, g)
                    {
                        grid_strided::<S, D>(src, s, dst, d, r, g);
                    }
                }
                return;
            }
            // Rows of one group take the group walks directly: the few-pixel paths below
            // would gather two 8-slot pixels per vector (about 2x slower).
            // SAFETY: same contract for the parts and the one-group grids.
            let done = unsafe {
                run_over_grid::<S, D>(
                    src,
                    s,
                    dst,
                    d,
                    r,
                    g,
                    |sp, dp, part| grid::<S, D>(sp, s, dp, d, r, part, src_end),
                    |sp, dp, row, gg| {
                        // BF16 copies into byte-plane tiles, one whole group a row: in
                        // pixel pairs, one 64-byte store for two tile pixels. A block a
                        // pixel measured 2x to 2.5x slower on Zen 4 (`bf16[4,15,15,257]`
                        // into 1x4x4x16 tiles 60 -> 24 us, `[1,16,16,256]` 7.8 -> 3.5 us;
                        // F16 copies, the same walk without the planes, 3.5 and 19 us
                        // by blocks, slower in pairs).
                        let planes = matches!(d.fmt, Fmt::Planes(_));
                        if planes && row.groups() == 1 && pairs_fit::<S, D>(s, d, row) {
                            by_fmts!(pixel_pairs, s, d, (sp, s, dp, d, row, gg))
                        } else if row.valid.is_multiple_of(row.slots)
                            && row.slots.is_multiple_of(16)
                        {
                            by_fmts!(grid_whole, s, d, (sp, s, dp, d, row, gg))
                        } else {
                            by_fmts!(grid_planned, s, d, (sp, s, dp, d, row, gg))
                        }
                    },
                )
            };
            if done {
                return;
            }
            if few_out_of_tiles::<S, D>(s, d, r) {
                // SAFETY: same contract; `groups16_fit` checked the pixel layout, and
                // AVX-512 implies AVX2.
                return unsafe { by_fmts!(grid_groups16, s, d, (src, s, dst, d, r, g, src_end)) };
            }
            if narrow_pairs_fit::<S, D>(s, d, r) {
                // SAFETY: same contract; `narrow_pairs_fit` checked the pixel layout.
                return unsafe {
                    match (
                        S::W == 4 && r.group(r.groups() - 1).0 <= 8,
                        d.fmt == Fmt::Planes(16),
                    ) {
                        (true, false) => narrow_pairs::<S, D, true, false>(src, s, dst, d, r, g),
                        (false, false) => narrow_pairs::<S, D, false, false>(src, s, dst, d, r, g),
                        (true, true) => narrow_pairs::<S, D, true, true>(src, s, dst, d, r, g),
                        (false, true) => narrow_pairs::<S, D, false, true>(src, s, dst, d, r, g),
                    }
                };
            }
            if r.valid.is_multiple_of(r.slots) && r.slots.is_multiple_of(16) {
                // SAFETY: same contract; every group is `slots` elements, whole blocks
                // (16-bit 16-slot groups with one side's pixels dense for the pairs).
                unsafe {
                    if pairs_fit::<S, D>(s, d, r) {
                        by_fmts!(pixel_pairs, s, d, (src, s, dst, d, r, g))
                    } else {
                        by_fmts!(grid_whole, s, d, (src, s, dst, d, r, g))
                    }
                };
                return;
            }
            if r.groups() == 1 && r.valid <= 8 && r.npix >= 2 {
                // SAFETY: same contract; the callees' conditions were checked.
                unsafe {
                    if let Some(p) = spread_pixels::<S, D>(s, d, r) {
                        // Chunks of more than 16 lanes (16-bit copies) load a whole
                        // vector; the others keep 32-byte loads (a 64-byte one measured
                        // 1.1x slower for f16[1,224,224,3], 12 lanes a chunk).
                        let planes = matches!(d.fmt, Fmt::Planes(_));
                        return match (planes, p * r.valid > 16) {
                            (true, true) => spread::<S, D, true, true>(src, s, dst, d, r, g, p),
                            (true, false) => spread::<S, D, true, false>(src, s, dst, d, r, g, p),
                            (false, true) => spread::<S, D, false, true>(src, s, dst, d, r, g, p),
                            (false, false) => spread::<S, D, false, false>(src, s, dst, d, r, g, p),
                        };
                    }
                    // Their packed plan first: for 16-bit tile pixels of 16 slots it
                    // loads two pixels per vector, which beats per-pixel loads.
                    if Packed::with::<S, D>(s, d, r, 2, |p| grid_packed::<S, D>(src, dst, g, p)) {
                        return;
                    }
                    if let Some(p) = gather_pixels::<S, D>(s, d, r) {
                        return if matches!(s.fmt, Fmt::Planes(_)) {
                            gather::<S, D, true>(src, s, dst, d, r, g, p)
                        } else {
                            gather::<S, D, false>(src, s, dst, d, r, g, p)
                        };
                    }
                }
            }
            let dense_into_planes = matches!(d.fmt, Fmt::Planes(_)) && s.pixel == r.valid * 2;
            let one_group = r.groups() == 1 && r.valid >= 8;
            let copy16 = S::W == 2 && S::DTYPE == D::DTYPE;
            // Out of planes, a lone partial group of 9 to 15 channels: the group loop
            // stores its 18 to 30 bytes in pieces, and the packed plan below took 0.3x
            // to 0.6x the time on Zen 4 (`bf16[2,31,29,12]` out of 1x4x4x16 tiles
            // 5.2 -> 2.1 us, `[1,224,224,15]` out of (4,4) blocks 124 -> 42 us).
            let groups = r.groups();
            let lone_partial = groups == 1 && (9..16).contains(&r.valid);
            let out_of_planes = matches!(s.fmt, Fmt::Planes(_)) && !lone_partial;
            // Out of planes, rows of 2 to 4 groups that end in a partial one (20 to 56
            // channels but 32 and 48): pixel pairs, the last group's elements masked,
            // took 0.6x to 0.85x the time of the group loop on Zen 4 (`bf16[1,57,55,40]`
            // out of 1x4x4x16 tiles and (4,4) blocks 0.78x and 0.84x, `[2,31,29,28]`
            // 0.67x); with more groups (100, 257 channels) 1.07x to 1.1x slower.
            if copy16
                && out_of_planes
                && (2..=4).contains(&groups)
                && !r.valid.is_multiple_of(16)
                && pairs_fit::<S, D>(s, d, r)
            {
                // SAFETY: same contract; `pairs_fit` checked the 16-slot layout (out of
                // tiles a partial last group is masked).
                return unsafe { by_fmts!(pixel_pairs, s, d, (src, s, dst, d, r, g)) };
            }
            if copy16
                && r.slots == 16
                && groups16_fit::<S, D>(s, d, r)
                && (out_of_planes || (one_group && dense_into_planes))
            {
                // BF16 copies out of byte-plane pixels, and into them from dense pixels
                // of 8 to 16 channels: the AVX2 group loop (one 256-bit vector a group)
                // measured 0.66x to 0.81x the time of the packed plan here
                // (`bf16[4,17,17,12]` in 1x4x4x16 tiles, `bf16[1,224,224,12]`), whose
                // lane permutation and 512-bit plane shuffle serve two pixels, and
                // 0.67x to 0.86x the group walks' out of tiles with a partial last
                // group (`bf16[1,57,55,40]`, `[8,28,28,257]`). From padded pixels (32
                // bytes apart) the packed plan's one load of two pixels is faster
                // (1.18x), and into tiles with several groups the walks are even.
                // SAFETY: same contract; `groups16_fit` checked the pixel layout, and
                // AVX-512 implies AVX2.
                return unsafe { by_fmts!(grid_groups16, s, d, (src, s, dst, d, r, g, src_end)) };
            }
            // SAFETY: same contract; `Packed::with` checked the packed layout.
            if Packed::with::<S, D>(s, d, r, 1, |p| unsafe {
                grid_packed::<S, D>(src, dst, g, p)
            }) {
                return;
            }
            if pairs8_fit::<S, D>(s, d, r) {
                // SAFETY: same contract; `pairs8_fit` checked the 8-slot layout of the
                // full groups.
                unsafe {
                    full_groups_then_rest::<S, D>(src, s, dst, d, r, g, |whole| {
                        by_fmts!(pixel_pairs8, s, d, (src, s, dst, d, whole, g))
                    })
                };
                return;
            }
            // BF16 copies out of tiles with a partial last group: the full groups in pixel
            // pairs, then the last groups alone. (Into tiles, or converting, the second
            // pass over the rows cost more than the pairs saved: 1.1 to 1.25x slower.)
            let planes_copy = matches!(s.fmt, Fmt::Planes(_)) && S::DTYPE == D::DTYPE;
            if planes_copy && pairs_fit::<S, D>(s, d, r) {
                // SAFETY: same contract; `pairs_fit` checked the 16-slot layout.
                unsafe {
                    full_groups_then_rest::<S, D>(src, s, dst, d, r, g, |whole| {
                        by_fmts!(pixel_pairs, s, d, (src, s, dst, d, whole, g))
                    })
                };
                return;
            }
            if S::DTYPE == D::DTYPE
                && d.pixel == 32
                && r.pad
                && pairs_fit::<S, D>(s, d, r)
                && (r.groups() < GROUP_OUTER_MIN || walk_by_group::<S, D>(s, d, r))
            {
                // 16-bit copies into 16-slot tiles with a partial last group
                // (`[1,57,55,40]` into 1x4x4x16 tiles: 16 + 16 + 8 channels): the pixel
                // pairs, that group's elements masked; 0.73x to 0.93x the time of the
                // group plans (`[1,57,55,40]`, `[1,33,33,24]`, `[1,9,9,1000]`). Only where
                // the plans would walk group by group too, or a pixel has few groups:
                // `[4,15,15,257]` into (4,4) blocks (17 groups a block apart) measured
                // 1.06x to 1.24x slower by the pairs' group walk.
                // SAFETY: same contract; `pairs_fit` checked the 16-slot layout, and
                // every slot is written (padded).
                return unsafe { by_fmts!(pixel_pairs, s, d, (src, s, dst, d, r, g)) };
            }
            // SAFETY: same contract.
            unsafe { by_fmts!(grid_planned, s, d, (src, s, dst, d, r, g)) };
        }

        /// Rows of pixels of at most 8 channels read out of tiles or blocks (one group a
        /// pixel, no padding written) whose conversion needs no BF16 rounding take the AVX2
        /// group loop (`few_rows_out`, 256-bit accesses), except where
        /// [`packed_out_of_tiles`] says: on Zen 4 it beat the AVX-512 paths over 99
        /// awkward untess cells (1 to 8 channels, three tilings) by 0.84x
        /// geomean, BF16 copies out of tiles 0.42x to 0.66x, F32 copies 0.64x to 0.77x,
        /// F16 to F32 0.59x to 0.89x (`f32[1,224,224,3]` to F16 out of 16-slot tiles was
        /// the one loss, 1.06x). Left out, as measured slower there: conversions to or
        /// from BF16 (AVX-512 BF16 instructions against AVX2's integer rounding, 1.2x to
        /// 1.4x), 1-channel F16 outputs (1.2x to 2.4x), and copies of up to 3 16-bit
        /// channels out of 32-slot tiles (1.13x to 1.23x).
        fn few_out_of_tiles<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            let no_bf16_rounding = S::DTYPE == D::DTYPE || !(bf16::<S>() || bf16::<D>());
            r.groups() == 1
                && !r.pad
                && r.npix >= 2
                && r.valid <= 8
                && (r.valid * D::W >= 4 || bf16::<S>())
                && (r.valid >= 4 || r.slots < 32 || S::W == 4)
                && no_bf16_rounding
                && !packed_out_of_tiles::<S, D>(r)
                && groups16_fit::<S, D>(s, d, r)
        }

        /// Few-channel 16-bit rows out of tiles of at most 16 slots that the packed plan
        /// reads faster than [`few_out_of_tiles`]' AVX2 loop on Zen 5 (several pixels a
        /// 512-bit load; its tables kept across grids, see [`Packed::with`]): BF16
        /// copies (out of byte planes; 0.23x to 0.6x the time: `bf16[1,224,224,6]` out
        /// of 1x4x4x8 tiles 94 -> 27 us), and out of 8-slot pixels F16 copies and F16 to
        /// F32 of up to 3 channels (0.6x to 0.8x). 200 cells of 1 to 8 channels out of
        /// 8- and 16-slot tiles and (4,4) and (2,2) blocks: 0.86x geomean; 4 to 8
        /// channels into F32 measured even. F16 copies out of 16-slot pixels, even on
        /// Zen 5, took 0.52x to 0.95x the time on Zen 4 (14 of 18 cells of 1 to 8
        /// channels out of 1x4x4x16 tiles and (4,4) blocks; `f16[1,57,55,8]` 0.81x and
        /// 0.86x, `[1,224,224,3]` out of blocks 0.80x), 1.05x to 1.1x slower on tensors
        /// under 1k elements.
        fn packed_out_of_tiles<S: Elem, D: Elem>(r: Row) -> bool {
            let copy = S::DTYPE == D::DTYPE;
            S::W == 2
                && r.slots <= 16
                && ((copy && (bf16::<S>() || r.slots == 16))
                    || (r.slots == 8 && (D::W == 2 || r.valid <= 3)))
        }

        /// Runs `full` on the row of `r`'s full groups (the first `valid / slots`), then
        /// the partial last group, if any, in a second pass by `grid_planned`: for the
        /// pixel-pair paths, which take whole groups only.
        ///
        /// # Safety
        /// As for `grid`; `full` may assume every group of its row is whole.
        #[inline(always)]
        unsafe fn full_groups_then_rest<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            full: impl FnOnce(Row),
        ) {
            let n = r.valid / r.slots;
            full(Row {
                valid: n * r.slots,
                ..r
            });
            if r.valid > n * r.slots {
                let rest = Row {
                    valid: r.valid - n * r.slots,
                    ..r
                };
                // SAFETY: the last group of each pixel starts `n` groups in (contract).
                unsafe {
                    let (sg, dg) = (src.add(n * s.group), dst.add(n * d.group));
                    by_fmts!(grid_planned, s, d, (sg, s, dg, d, rest, g));
                }
            }
        }

        /// Whether `grid_whole` and `grid_planned` walk `r` group by group: rows of
        /// [`GROUP_OUTER_MIN`] groups or more whose groups crowd an L1 set. Elsewhere pixel
        /// by pixel measured faster on Zen 4: `f32[1,56,56,64]` into BF16 1x4x4x16 tiles
        /// 1.45x -> 1.2x the contiguous Cast; 120 random many-channel cells of whole groups
        /// 0.97x geomean (none more than 1.09x slower), 120 with a partial last group
        /// 0.96x (one 1.12x slower, 22 more than 1.1x faster).
        fn walk_by_group<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            r.groups() >= GROUP_OUTER_MIN && r.npix > 1 && groups_crowd_l1::<S, D>(s, d, r)
        }

        /// The friendly case of `grid` (a tiled placement whose channel count is a
        /// multiple of a 16-slot-multiple tile, e.g. `[1,56,56,64]` into 1x4x4x16): every
        /// group converts all of its `slots` elements in whole 16-lane blocks, so no
        /// masks, no tail and no padding. The formats' variants are compile-time
        /// (`SP`/`DP`: byte planes on the source/destination side), so each block is
        /// straight-line code; the generic walk paid a format match and the tail loop
        /// per block, which on 16-slot tiles (one block per group) cost about as much as
        /// the conversion itself.
        ///
        /// # Safety
        /// As for `grid`, with direct formats, `slots % 16 == 0` and
        /// `valid % slots == 0`; `SP`/`DP` match the variants of `s.fmt`/`d.fmt`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_whole<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP));
            let slots = r.slots;
            // Byte planes of 16 and 32 slots as constant formats ([`fixed_n`]): with the
            // plane size a run-time value, the loop of `bf16[8,14,14,32]` out of 1x4x4x16
            // tiles into F32 ran about 40 instructions a pixel (two groups), 30 without.
            // A row whose planes are not its slots (none the placements make) takes the
            // block loop at the end with the run-time formats.
            let by_group = walk_by_group::<S, D>(s, d, r);
            macro_rules! walk {
                ($f:expr) => {
                    for_each_group_ordered::<S, D>(src, s, dst, d, r, g, by_group, $f)
                };
            }
            let constant = planes_of(s.fmt, d.fmt, SP, DP, slots);
            // SAFETY: each group is in bounds (contract) and holds `slots` elements and
            // slots (every group is full: `valid % slots == 0`), so the unmasked blocks
            // at k = 0, 16, .. < slots touch only the group's elements and slots.
            unsafe {
                match slots {
                    16 if constant => {
                        let (sf, df) = (fixed_n::<S, 16>(SP), fixed_n::<D, 16>(DP));
                        walk!(|sp, dp, _| block::<S, D>(sp, sf, dp, df, 0, 0xFFFF, 0xFFFF))
                    }
                    32 if constant => {
                        let (sf, df) = (fixed_n::<S, 32>(SP), fixed_n::<D, 32>(DP));
                        if wide32::<S, D>(sf, df) {
                            walk!(|sp, dp, _| block32::<S, D>(sp, sf, dp, df, u32::MAX, u32::MAX))
                        } else if narrow32::<S, D>(sf, df, true) {
                            walk!(|sp, dp, _| group32_narrow::<S, D, DP>(sp, dp, u32::MAX))
                        } else {
                            // Two fixed blocks, not the loop below: a run-time loop of two
                            // blocks per group measured 1.7x to 2x slower on the Intel
                            // machine (`f16[1,56,56,64]` into 1x8x8x32 tiles 30 -> 14.5 us).
                            walk!(|sp, dp, _| {
                                block::<S, D>(sp, sf, dp, df, 0, 0xFFFF, 0xFFFF);
                                block::<S, D>(sp, sf, dp, df, 16, 0xFFFF, 0xFFFF);
                            })
                        }
                    }
                    _ => walk!(|sp, dp, _| {
                        let mut k = 0;
                        // F16 <-> BF16 runs (the contiguous Cast) 32 lanes a vector first:
                        // 0.91x to 0.97x the time of 16-lane blocks on Zen 4
                        // (`[1,57,55,40]`, `[8,28,28,257]`, `[1,224,224,3]`, both ways).
                        if S::W == 2 && D::W == 2 && S::DTYPE != D::DTYPE && !SP && !DP {
                            while k + 32 <= slots {
                                let (sk, dk) = (sp.add(2 * k), dp.add(2 * k));
                                block32::<S, D>(sk, sf, dk, df, u32::MAX, u32::MAX);
                                k += 32;
                            }
                        }
                        while k < slots {
                            block::<S, D>(sp, sf, dp, df, k, 0xFFFF, 0xFFFF);
                            k += 16;
                        }
                    }),
                }
            }
        }

        /// Whether [`pixel_pairs`] takes the full groups of `r`: 16-bit elements in
        /// 16-slot groups, several pixels a row, a tile's dense pixels on one side. Into
        /// tiles always: into BF16 byte planes, once the pair walk's pixel loop was a
        /// compile-time count ([`group_walk`]), `bf16[1,56,56,64]` into 1x4x4x16 tiles
        /// and (4,4) blocks measured 0.56x to 0.58x the time of one group a block pixel
        /// by pixel (`grid_whole`) on the Intel machine, other 16-bit cells even (on Zen
        /// 4 and 5, with the run-time pixel loop, pairs into planes had measured 1.05x
        /// to 1.07x slower); into F16 tiles, on Zen 5, 64 random and matrix cells 0.92x
        /// to 0.95x geomean. Out of tiles, from BF16 byte planes (a pair is one shuffle)
        /// or into F16 elements (F16 copies out of tiles: 37 cells 0.90x to 0.93x
        /// geomean on Zen 5; F16 into BF16 planes measured 0.99x to 1.12x, so not taken).
        fn pairs_fit<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            let tile_pixels = |x: Side| x.pixel == 32 && x.group != 32;
            let planes = |x: Side| matches!(x.fmt, Fmt::Planes(_));
            r.slots == 16
                && S::W == 2
                && D::W == 2
                && r.npix > 1
                && r.valid >= 16
                && (tile_pixels(d) || (tile_pixels(s) && (planes(s) || !planes(d))))
        }

        /// 16-bit elements in 16-slot groups whose pixels follow each other on one side
        /// (a tile's pixels, 32 bytes each): two pixels of a group are one 64-byte
        /// vector there and two 32-byte halves on the other side, so a pair is one
        /// full-width load or store instead of two half-width ones (the converts, for
        /// F16<->BF16, and the byte-plane shuffles stay per pixel or per pair). A partial
        /// last group has its elements masked (zeros past them into tiles).
        ///
        /// # Safety
        /// As for `grid`, with direct formats, `S::W == D::W == 2`, `slots == 16`, and
        /// `d.pixel == 32` or `s.pixel == 32` (see [`pairs_fit`]); into tiles (`d.pixel ==
        /// 32`) the row is padded or its groups whole; `SP`/`DP` match the variants of
        /// `s.fmt`/`d.fmt`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn pixel_pairs<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP));
            let cvt = |x: __m256i| -> __m256i {
                if S::DTYPE == D::DTYPE {
                    x
                } else {
                    narrow(S::DTYPE, D::DTYPE, widen_to(S::DTYPE, D::DTYPE, x))
                }
            };
            // BF16 -> F16 converts a pair's 32 lanes at once ([`convert32`], no widening
            // shuffle): 0.92x to 0.97x the time out of and into 16-slot tiles on Zen 4
            // (`bf16[1,56,56,64]`); F16 -> BF16 measured 1.06x slower that way, so it
            // converts each pixel's 16 lanes.
            let whole_pair = S::DTYPE == DType::BF16 && D::DTYPE == DType::F16;
            let each = |x: __m256i| if whole_pair { x } else { cvt(x) };
            let pair = |v: __m512i| if whole_pair { convert32::<S, D>(v) } else { v };
            let into_tiles = d.pixel == 32;
            // The lanes of the last group's elements (all 16 when every group is whole).
            let lm = mask(r.group(r.groups() - 1).0);
            // SAFETY: every visited group holds 16 slots, and 16 elements but for a
            // pixel's last, which holds the elements in `lm`: only those are read on the
            // flat side, and written out of tiles; into tiles its 16 slots are written
            // (`pairs_fit`: padded), zeros past the elements. A pair's second pixel exists
            // (`n == 2`), so the 64 dense bytes are its two pixels' groups (a tile's
            // slots, readable) and the halves the other side's.
            unsafe {
                for_each_group_by::<S, D, 2>(src, s, dst, d, r, g, |sp, dp, last, n| {
                    let m = if last { lm } else { 0xFFFF };
                    if n == 1 {
                        let wm = if r.pad { 0xFFFF } else { m };
                        return block::<S, D>(sp, sf, dp, df, 0, m, wm);
                    }
                    if into_tiles {
                        let a = each(load16(sp, sf, 0, m));
                        let b = each(load16(sp.add(s.pixel), sf, 0, m));
                        let v = pair(_mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b));
                        let v = if DP { to_planes(v, 16) } else { v };
                        _mm512_storeu_si512(dp.cast(), v);
                    } else {
                        let v = _mm512_loadu_si512(sp.cast());
                        let v = pair(if SP { from_planes(v, 16) } else { v });
                        store16(dp, df, 0, m, each(_mm512_castsi512_si256(v)));
                        let hi = _mm512_extracti64x4_epi64::<1>(v);
                        store16(dp.add(d.pixel), df, 0, m, each(hi));
                    }
                })
            }
        }

        /// Whether [`narrow_pairs`] takes `r`: dense F32 pixels into 16-slot F16 or BF16
        /// pixels, or dense F16 pixels into BF16 ones (elements or byte planes), that
        /// follow each other (a tile's), every slot written (tiles are padded), at least
        /// one full group a pixel. BF16 pairs are one `vcvtne2ps2bf16` ([`narrow_pair`]):
        /// on the Intel machine, 24 cells into 1x4x4x16 tiles and (4,4) blocks 0.88x
        /// geomean from F32 (0.63x to 1.01x; with two separate conversions they had
        /// measured 1.0x to 1.15x slower on Zen 5), 0.78x to 0.96x from F16. Not
        /// out of 16-bit tiles into F32 (0.8x to 0.95x on tensors past L2, but 1.02x to
        /// 1.09x on small ones).
        fn narrow_pairs_fit<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            narrows_in_pairs::<S, D>(s.fmt)
                && (d.fmt == Fmt::Elements(2) || d.fmt == Fmt::Planes(16))
                && d.pixel == 32
                && d.group != 32
                && r.slots == 16
                && (r.pad || r.valid.is_multiple_of(16))
                && r.npix > 1
                && r.valid >= 16
        }

        /// Dense F32 (or F16) pixels into 16-slot F16 or BF16 tile pixels, two tile pixels
        /// of a group at a time: the two pixels' groups are one 64-byte store on the tile
        /// side instead of two 32-byte ones (38 random cells of 16 to 257 channels in
        /// 16-slot tiles and (4,4) blocks on Zen 5: 0.96x geomean, 0.85x to 1.2x). Pixel
        /// pair by pixel pair, or group by group where the groups crowd an L1 set (see
        /// `walk_by_group`: 128 groups 4 KiB apart measured 1.9x slower pair by pair).
        /// With `HALF` (F32 sources) the last group has at most 8 elements and goes by
        /// [`half_pair_into`]; a separate instance, so rows without such a group
        /// run the same code as before it (a branch in the shared loop moved unrelated
        /// cells by up to 1.3x).
        ///
        /// # Safety
        /// As for `grid`, with [`narrow_pairs_fit`].
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn narrow_pairs<S: Elem, D: Elem, const HALF: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (
                Fmt::Elements(S::W),
                if DP {
                    Fmt::Planes(16)
                } else {
                    Fmt::Elements(2)
                },
            );
            let last = r.groups() - 1;
            // Elements read in the last group (its 16 slots are all written: zeros past).
            let tail = ((1u32 << r.group(last).0) - 1) as __mmask16;
            let lanes = |is_last: bool| if is_last { tail } else { 0xFFFF };
            let half = HALF;
            // SAFETY: rows in bounds (contract): each pixel's groups hold 16 slots on the
            // tile side, of which `nv` are read in the last, all 16 written; a pair's
            // second pixel exists, its group 32 bytes after the first on the tile side
            // and `pixel` bytes after it on the F32 side.
            unsafe {
                if walk_by_group::<S, D>(s, d, r) {
                    return for_each_group_by::<S, D, 2>(src, s, dst, d, r, g, |sp, dp, l, n| {
                        if n == 2 && half && l {
                            half_pair_into::<D, DP>(sp, s, dp, tail as u8)
                        } else if n == 2 {
                            pair_into::<S, D, DP>(sp, s, dp, lanes(l))
                        } else {
                            block::<S, D>(sp, sf, dp, df, 0, lanes(l), 0xFFFF)
                        }
                    });
                }
                for_each_row(src, dst, g, |sj, dj| {
                    let mut p = 0;
                    let (mut sp, mut dp) = (sj, dj);
                    while p < r.npix {
                        let two = p + 2 <= r.npix;
                        let (mut sg, mut dg) = (sp, dp);
                        for gi in 0..=last {
                            let vm = lanes(gi == last);
                            if two && half && gi == last {
                                half_pair_into::<D, DP>(sg, s, dg, tail as u8);
                            } else if two {
                                pair_into::<S, D, DP>(sg, s, dg, vm);
                            } else {
                                // An odd last pixel.
                                block::<S, D>(sg, sf, dg, df, 0, vm, 0xFFFF);
                            }
                            sg = sg.wrapping_add(s.group);
                            dg = dg.wrapping_add(d.group);
                        }
                        p += 2;
                        sp = sp.wrapping_add(2 * s.pixel);
                        dp = dp.wrapping_add(2 * d.pixel);
                    }
                })
            }
        }

        /// One last group of two pixels (see [`narrow_pairs`]) of at most 8 elements: each
        /// pixel's in one 256-bit load and conversion, unmasked when there are 8, both
        /// stored as the group's 64 bytes with zeros past them. Against two 512-bit
        /// masked loads and conversions, 47 cells with such a group: 0.95x geomean
        /// (0.78x to 1.24x), e.g. `f32[1,57,55,40]` into 1x4x4x16 tiles 0.84x to 0.88x.
        ///
        /// # Safety
        /// The pair's elements in `m` are readable and the 64 bytes writable.
        #[inline(always)]
        unsafe fn half_pair_into<D: Elem, const DP: bool>(
            sg: *const u8,
            s: Side,
            dg: *mut u8,
            m: u8,
        ) {
            // SAFETY: only the lanes in `m` are read and the 64 bytes written (caller).
            unsafe {
                let second = sg.add(s.pixel);
                let (x, y) = if m == 0xFF {
                    (_mm256_loadu_ps(sg.cast()), _mm256_loadu_ps(second.cast()))
                } else {
                    (
                        _mm256_maskz_loadu_ps(m, sg.cast()),
                        _mm256_maskz_loadu_ps(m, second.cast()),
                    )
                };
                let v = if D::DTYPE == DType::F16 {
                    let a = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(x);
                    let b = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(y);
                    _mm512_inserti32x4::<2>(_mm512_zextsi128_si512(a), b)
                } else {
                    let sub = _mm256_fpclass_ps_mask::<0x20>(x) | _mm256_fpclass_ps_mask::<0x20>(y);
                    if sub != 0 {
                        let (a, b) = (
                            _mm512_zextsi256_si512(_mm256_castps_si256(x)),
                            _mm512_zextsi256_si512(_mm256_castps_si256(y)),
                        );
                        return pair_store::<D, DP>(DType::F32, dg, a, b);
                    }
                    // [x0..x7 y0..y7] as BF16 lanes.
                    let xy: __m256i = std::mem::transmute(_mm256_cvtne2ps_pbh(y, x));
                    if DP {
                        let idx = _mm512_loadu_si512(HALF_PLANES.as_ptr().cast());
                        _mm512_maskz_permutexvar_epi8(
                            HALF_PLANES_BYTES,
                            idx,
                            _mm512_zextsi256_si512(xy),
                        )
                    } else {
                        _mm512_inserti32x4::<2>(
                            _mm512_zextsi128_si512(_mm256_castsi256_si128(xy)),
                            _mm256_extracti128_si256::<1>(xy),
                        )
                    }
                };
                _mm512_storeu_si512(dg.cast(), v);
            }
        }

        /// `vpermb` indices from 16 BF16 lanes (two pixels' 8 elements each) to the two
        /// pixels' 16-slot byte planes; the bytes of [`HALF_PLANES_BYTES`] take them, the
        /// others (slots 8 to 15) are zeroed.
        const HALF_PLANES: [u8; 64] = {
            let mut idx = [0u8; 64];
            let mut b = 0;
            while b < 64 {
                let (pixel, j) = (b / 32, b % 32);
                let (lane, high) = (pixel * 8 + j % 16, j >= 16);
                idx[b] = (2 * lane + high as usize) as u8;
                b += 1;
            }
            idx
        };

        /// The bytes of [`HALF_PLANES`] that hold an element: slots 0 to 7 of each plane.
        const HALF_PLANES_BYTES: u64 = 0x00FF_00FF_00FF_00FF;

        /// One group of two pixels (see [`narrow_pairs`]): the F32 or F16 elements in
        /// `vm` of each from `sg` and `sg + s.pixel` into the two 16-slot groups' 64 bytes
        /// at `dg` (zeros past `vm`; byte planes with `DP`).
        ///
        /// # Safety
        /// The pair's elements in `vm` are readable and the 64 bytes writable.
        #[inline(always)]
        unsafe fn pair_into<S: Elem, D: Elem, const DP: bool>(
            sg: *const u8,
            s: Side,
            dg: *mut u8,
            vm: __mmask16,
        ) {
            // SAFETY: only the lanes in `vm` are read and the 64 bytes written (caller).
            unsafe {
                let a = load_f32::<S>(sg, vm);
                let b = load_f32::<S>(sg.add(s.pixel), vm);
                pair_store::<D, DP>(S::DTYPE, dg, a, b)
            }
        }

        /// The elements in `m` of the 16 F32 or F16 elements at `p` as F32 bits (zero
        /// elsewhere).
        ///
        /// # Safety
        /// The elements in `m` are readable.
        #[inline(always)]
        unsafe fn load_f32<S: Elem>(p: *const u8, m: __mmask16) -> __m512i {
            // SAFETY: only the lanes in `m` are read (caller); the callers enable the
            // features.
            unsafe {
                if S::W == 4 {
                    _mm512_maskz_loadu_epi32(m, p.cast())
                } else {
                    widen(S::DTYPE, _mm256_maskz_loadu_epi16(m, p.cast()))
                }
            }
        }

        /// Stores the F32 lanes of `a` then `b` (values read as `from`) as 32 lanes of
        /// `D` at `dg` (two 16-slot pixels; byte planes with `DP`), by [`narrow_pair`].
        ///
        /// # Safety
        /// The 64 bytes at `dg` are writable.
        #[inline(always)]
        unsafe fn pair_store<D: Elem, const DP: bool>(
            from: DType,
            dg: *mut u8,
            a: __m512i,
            b: __m512i,
        ) {
            // SAFETY: the 64 bytes are writable (caller); the callers enable the
            // features.
            unsafe {
                let v = narrow_pair::<D>(from, a, b);
                let v = if DP { to_planes(v, 16) } else { v };
                _mm512_storeu_si512(dg.cast(), v)
            }
        }

        /// The F32 lanes of `a` then `b` (values read as `from`, see [`narrow`]) as 32
        /// lanes of `D` (F16 or BF16). BF16 is one `vcvtne2ps2bf16` for both unless a
        /// lane is subnormal (it flushes those; [`narrow`] keeps them; F16 values never
        /// are): half the conversions of two [`narrow`]s, which on the Intel machine share
        /// a port with the compares and byte shuffles.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn narrow_pair<D: Elem>(from: DType, a: __m512i, b: __m512i) -> __m512i {
            let sub = |x: __m512i| _mm512_fpclass_ps_mask::<0x20>(_mm512_castsi512_ps(x));
            if D::DTYPE == DType::BF16 && (from == DType::F16 || sub(a) | sub(b) == 0) {
                let ab = _mm512_cvtne2ps_pbh(_mm512_castsi512_ps(b), _mm512_castsi512_ps(a));
                // SAFETY: 32 BF16 lanes reinterpreted as the same 64 bytes.
                unsafe { std::mem::transmute::<__m512bh, __m512i>(ab) }
            } else {
                _mm512_inserti64x4::<1>(
                    _mm512_castsi256_si512(narrow(from, D::DTYPE, a)),
                    narrow(from, D::DTYPE, b),
                )
            }
        }

        /// Whether a 32-slot group narrows F32 into 16-bit slots by [`group32_narrow`]:
        /// contiguous F32 elements into BF16 elements or 32-slot byte planes, or into F16
        /// elements where every group is `whole` (F32 into BF16 1x8x8x32 tiles, 12
        /// shapes: 0.63x to 1.0x, 0.89x geomean; into F16 0.81x to 0.99x where the
        /// channels fill whole groups, but up to 1.1x slower with a partial last group);
        /// F16 elements into BF16 where every group is `whole` (`[1,56,56,64]` and
        /// `[1,7,7,2048]` into and out of 1x8x8x32 tiles 0.67x to 0.94x, out of tiles of
        /// `[1,7,7,2048]` 1.12x to 1.16x).
        #[inline(always)]
        fn narrow32<S: Elem, D: Elem>(sf: Fmt, df: Fmt, whole: bool) -> bool {
            narrows_in_pairs::<S, D>(sf)
                && (whole || (S::W == 4 && D::DTYPE == DType::BF16))
                && matches!(df, Fmt::Elements(2) | Fmt::Planes(32))
        }

        /// Whether contiguous `S` elements go into `D` by [`narrow_pair`]: F32 into F16
        /// or BF16, or F16 into BF16 (each group widened first; F16 values are never F32
        /// subnormals).
        #[inline(always)]
        fn narrows_in_pairs<S: Elem, D: Elem>(sf: Fmt) -> bool {
            sf == Fmt::Elements(S::W)
                && match S::DTYPE {
                    DType::F32 => matches!(D::DTYPE, DType::F16 | DType::BF16),
                    DType::F16 => D::DTYPE == DType::BF16,
                    _ => false,
                }
        }

        /// A 32-slot group of F32 elements into F16 or BF16, or of F16 elements (each half
        /// widened) into BF16 (see [`narrow32`]): the elements in `vm` converted as one
        /// pair ([`narrow_pair`]) and all 32 slots written (zero where `vm` is clear) by
        /// one 64-byte store, byte planes by one shuffle of the whole pixel; two 16-lane
        /// blocks took two conversions and two stores, or four 16-byte ones into planes.
        ///
        /// # Safety
        /// [`narrow32`] holds; the elements in `vm` readable and the 32 slots writable.
        #[inline(always)]
        unsafe fn group32_narrow<S: Elem, D: Elem, const DP: bool>(
            sp: *const u8,
            dp: *mut u8,
            vm: __mmask32,
        ) {
            // SAFETY: only the lanes in `vm` are read, the group's 64 bytes written.
            unsafe {
                // F16: the group's 64 bytes in one load, each half widened.
                let (a, b) = if S::W == 4 {
                    (
                        load_f32::<S>(sp, vm as __mmask16),
                        load_f32::<S>(sp.add(64), (vm >> 16) as __mmask16),
                    )
                } else {
                    let x = _mm512_maskz_loadu_epi16(vm, sp.cast());
                    (
                        widen_to(S::DTYPE, D::DTYPE, _mm512_castsi512_si256(x)),
                        widen_to(S::DTYPE, D::DTYPE, _mm512_extracti64x4_epi64::<1>(x)),
                    )
                };
                let v = narrow_pair::<D>(S::DTYPE, a, b);
                let v = if DP { to_planes(v, 32) } else { v };
                _mm512_storeu_si512(dp.cast(), v);
            }
        }

        /// Whether [`pixel_pairs8`] takes the full groups of `r`: 8-slot groups (8-slot
        /// tiles), several pixels a row, and the tile's dense pixels (one group each,
        /// `8 * W` bytes apart) on one side; a partial last group then goes in a second
        /// pass, for BF16 only (see below). Not taken where one 8-lane block per pixel
        /// measured faster: F16 written by a conversion into tiles (`f32[1,32,32,128]`
        /// 8.6 -> 10.4 us in pairs) or out of F32 tiles (1.05 to 1.15x), and 32 or more
        /// groups a pixel whose channel tiles lie a multiple of 4 KiB apart, all in one L1
        /// set (`f32[1,16,32,256]` into BF16 tiles 11.4 -> 18.5 us, `f32[1,14,14,1024]`
        /// out of F32 tiles 17.7 -> 20.4 us).
        fn pairs8_fit<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            let tile_pixels = |x: Side, w: usize| x.pixel == 8 * w && x.group != 8 * w;
            let into = tile_pixels(d, D::W);
            let tiles = if into { d } else { s };
            let aliased = tiles.group.is_multiple_of(4096) && r.groups() >= 32;
            // F16 written by a conversion: into tiles from F32 or BF16, out of F32 tiles.
            let into_f16 = D::DTYPE == DType::F16
                && if into {
                    S::DTYPE != DType::F16
                } else {
                    S::DTYPE == DType::F32
                };
            // A partial last group costs a second pass over the rows; it paid off only
            // where BF16 is converted into tiles or either side of a read out of them
            // is BF16 (0.65 to 0.9x the time), not for copies or F32/F16 pairs (up to
            // 1.19x: f32[1,57,55,44] into F32 tiles).
            let bf16 = |x: DType| x == DType::BF16;
            let two_passes = if into {
                bf16(D::DTYPE) && !bf16(S::DTYPE)
            } else {
                bf16(S::DTYPE) || bf16(D::DTYPE)
            };
            r.slots == 8
                && (r.valid.is_multiple_of(8) || (r.valid > 8 && two_passes))
                && r.npix > 1
                && (into || tile_pixels(s, S::W))
                && !aliased
                && !into_f16
        }

        /// 8-slot groups (8-slot tiles) two pixels at a time: a group of two consecutive
        /// tile pixels is one 16-lane vector (32 or 64 bytes), so the pair takes one
        /// conversion, one byte-plane shuffle and one load or store on the tiles' side
        /// instead of two half-empty ones. One 8-lane block per group measured about 2x
        /// the 16-slot tiles' time for BF16 (`f32[1,56,56,64]` into 1x4x4x8 tiles:
        /// 19.7 us against 12.1 us).
        ///
        /// # Safety
        /// As for `grid_whole`, with `slots == 8`, `valid % 8 == 0` and the tile side's
        /// pixels `8 * W` bytes apart (see [`pairs8_fit`]).
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn pixel_pairs8<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP));
            let into_tiles = d.pixel == 8 * D::W && d.group != 8 * D::W;
            // The 16 elements of the pair at `sp` (pixels `s.pixel` apart) in the low
            // lanes (32-bit lanes for F32), converted to `D`.
            let pair = |sp: *const u8| -> __m512i {
                // SAFETY: the pair's 16 elements are readable (contract of the walk below).
                let x = unsafe {
                    if S::W == 4 {
                        let a = _mm256_loadu_si256(sp.cast());
                        let b = _mm256_loadu_si256(sp.add(s.pixel).cast());
                        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(a), b)
                    } else if into_tiles {
                        let v = _mm256_inserti128_si256::<1>(
                            _mm256_castsi128_si256(load8(sp, sf)),
                            load8(sp.add(s.pixel), sf),
                        );
                        _mm512_castsi256_si512(v)
                    } else {
                        let v = _mm512_castsi256_si512(_mm256_loadu_si256(sp.cast()));
                        if SP {
                            from_planes(v, 8)
                        } else {
                            v
                        }
                    }
                };
                convert16::<S, D>(x)
            };
            // Stores the converted pair `y` at `dp` (pixels `d.pixel` apart).
            let put = |dp: *mut u8, y: __m512i| {
                // SAFETY: the pair's 16 slots are writable (contract of the walk below).
                unsafe {
                    if D::W == 4 {
                        _mm256_storeu_si256(dp.cast(), _mm512_castsi512_si256(y));
                        let hi = _mm512_extracti64x4_epi64::<1>(y);
                        _mm256_storeu_si256(dp.add(d.pixel).cast(), hi);
                    } else if into_tiles {
                        let y = if DP { to_planes(y, 8) } else { y };
                        _mm256_storeu_si256(dp.cast(), _mm512_castsi512_si256(y));
                    } else {
                        let y = _mm512_castsi512_si256(y);
                        store8(dp, df, _mm256_castsi256_si128(y));
                        store8(dp.add(d.pixel), df, _mm256_extracti128_si256::<1>(y));
                    }
                }
            };
            // SAFETY: every visited group holds 8 elements and 8 slots (contract); the
            // walk hands `n` pixels, which exist; on the tiles' side consecutive pixels'
            // groups are consecutive `8 * W`-byte runs.
            unsafe {
                // A pair of F32 pixels is a whole 64-byte vector already. Converting into
                // BF16 tiles, pairs measured 1.15 to 1.25x faster than fours; copying
                // into tiles, fours 1.15 to 1.2x faster than pairs.
                // Fours are 16-bit on both sides: four F32 pixels are two vectors.
                if D::W == 4 || S::W == 4 || (into_tiles && S::DTYPE != D::DTYPE) {
                    return for_each_group_by::<S, D, 2>(src, s, dst, d, r, g, |sp, dp, _, n| {
                        if n == 1 {
                            block8::<S, D>(sp, sf, dp, df)
                        } else if into_tiles && D::W == 4 {
                            _mm512_storeu_si512(dp.cast(), pair(sp))
                        } else {
                            put(dp, pair(sp))
                        }
                    });
                }
                // 16-bit slots: four pixels are one 64-byte vector on the tiles' side.
                for_each_group_by::<S, D, 4>(src, s, dst, d, r, g, |sp, dp, _, n| {
                    let (sq, dq) = (sp.add(2 * s.pixel), dp.add(2 * d.pixel));
                    if n < 4 {
                        if n >= 2 {
                            put(dp, pair(sp));
                        }
                        if n % 2 == 1 {
                            let k = n - 1;
                            block8::<S, D>(sp.add(k * s.pixel), sf, dp.add(k * d.pixel), df);
                        }
                    } else if into_tiles {
                        let (a, b) = (pair(sp), pair(sq));
                        let v = _mm512_inserti64x4::<1>(a, _mm512_castsi512_si256(b));
                        let v = if DP { to_planes(v, 8) } else { v };
                        _mm512_storeu_si512(dp.cast(), v);
                    } else {
                        let v = _mm512_loadu_si512(sp.cast());
                        let v = if SP { from_planes(v, 8) } else { v };
                        let hi = _mm512_castsi256_si512(_mm512_extracti64x4_epi64::<1>(v));
                        put(dp, convert16::<S, D>(v));
                        put(dq, convert16::<S, D>(hi));
                    }
                })
            }
        }

        /// The 16-lane blocks of one group, planned once per grid: `full` blocks whose
        /// 16 lanes are all converted, then (when `vm != 0`) one block converting the
        /// lanes `vm` and writing the lanes `wm`, then zero-only blocks (padding: no load,
        /// no conversion), `zfull` whole ones and one writing the lanes `ztail`.
        #[derive(Clone, Copy)]
        struct Plan {
            full: usize,
            vm: __mmask16,
            wm: __mmask16,
            zfull: usize,
            ztail: __mmask16,
        }

        impl Plan {
            /// The plan of a group converting `nv` elements and writing `ns >= nv` slots.
            fn new(nv: usize, ns: usize) -> Plan {
                let full = nv / 16;
                let mut k = 16 * full;
                let (mut vm, mut wm) = (0, 0);
                if nv > k {
                    vm = mask(nv - k);
                    wm = mask((ns - k).min(16));
                    k += 16;
                }
                let z = ns.saturating_sub(k);
                Plan {
                    full,
                    vm,
                    wm,
                    zfull: z / 16,
                    ztail: mask(z % 16),
                }
            }

            /// Runs the plan on the group at `sp` / `dp`.
            ///
            /// # Safety
            /// The group's `nv` elements are readable and `ns` slots writable; formats
            /// direct; AVX-512 F/BW/VL/DQ/BF16/VBMI available.
            #[inline(always)]
            unsafe fn run<S: Elem, D: Elem>(&self, sp: *const u8, sf: Fmt, dp: *mut u8, df: Fmt) {
                // SAFETY: blocks below `full` lie inside the nv elements and ns slots;
                // the mixed block reads lanes below nv and writes lanes below ns; zero
                // blocks write slots below ns (masked-off lanes are not accessed).
                unsafe {
                    let mut k = 0;
                    for _ in 0..self.full {
                        block::<S, D>(sp, sf, dp, df, k, 0xFFFF, 0xFFFF);
                        k += 16;
                    }
                    if self.vm != 0 {
                        block::<S, D>(sp, sf, dp, df, k, self.vm, self.wm);
                        k += 16;
                    }
                    for _ in 0..self.zfull {
                        zero::<D>(dp, df, k, 0xFFFF);
                        k += 16;
                    }
                    if self.ztail != 0 {
                        zero::<D>(dp, df, k, self.ztail);
                    }
                }
            }
        }

        /// Any row of direct formats: the group plans (a pixel's full groups and its
        /// last one) are computed once, so each block is a straight load, convert, store
        /// with fixed masks, and padding slots are stored as zeros without a conversion.
        /// Full groups of 16 or 32 slots (the common tiles) run a compile-time number of
        /// unmasked blocks: a run-time block loop around each group measured about 1.7x
        /// slower on `[1,57,55,48]` into 16-slot tiles.
        ///
        /// # Safety
        /// As for `grid`, with direct formats; `SP`/`DP` match the variants of
        /// `s.fmt`/`d.fmt`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_planned<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            // SAFETY: same contract; `FULL` is `slots` when nonzero, and a last group of
            // at most 8 slots (8-slot tiles) is `ONE` block.
            unsafe {
                let full_groups = r.groups() - 1;
                let (nv, ns) = r.group(full_groups);
                // The last group is one masked block (a few channels), then zero blocks
                // up to the tile's slots when padded.
                let one = nv < 16 && (ns <= 16 || ns == r.slots);
                // `planned` takes byte planes of `FULL` slots as constant formats; other
                // rows (none the placements make) the general plan.
                let constant = planes_of(s.fmt, d.fmt, SP, DP, r.slots);
                if S::W == 2
                    && constant
                    && r.slots == 32
                    && r.pad
                    && narrow32::<S, D>(s.fmt, d.fmt, true)
                {
                    return narrow32_padded::<S, D, DP>(src, s, dst, d, r, g);
                }
                match (if constant { r.slots } else { 0 }, one) {
                    (8, _) => planned::<S, D, SP, DP, 8, true>(src, s, dst, d, r, g),
                    (16, true) => planned::<S, D, SP, DP, 16, true>(src, s, dst, d, r, g),
                    (16, false) => planned::<S, D, SP, DP, 16, false>(src, s, dst, d, r, g),
                    (32, true) => planned::<S, D, SP, DP, 32, true>(src, s, dst, d, r, g),
                    (32, false) => planned::<S, D, SP, DP, 32, false>(src, s, dst, d, r, g),
                    _ => planned::<S, D, SP, DP, 0, false>(src, s, dst, d, r, g),
                }
            }
        }

        /// F16 into BF16 32-slot tile pixels with a partial last group (`f16[1,57,55,40]`
        /// into 1x8x8x32 tiles: 32 + 8 channels): every group by [`group32_narrow`], the
        /// last one's missing elements masked and all its slots written, one 64-byte
        /// store a group. In [`planned`]'s group closure the F16 widening made the
        /// closure too large to inline, so this row shape has its own walk; `planned`
        /// converted 16 lanes at a time and wrote four 16-byte plane pieces a group.
        ///
        /// # Safety
        /// As for `grid_planned`, with `narrow32::<S, D>(.., true)`, 32 slots a group
        /// (byte-plane sides of 32-slot planes) and `r.pad` (every slot of every group
        /// written).
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn narrow32_padded<S: Elem, D: Elem, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let lvm = mask32(r.group(r.groups() - 1).0);
            let by_group = walk_by_group::<S, D>(s, d, r);
            // SAFETY: rows in bounds (contract); a full group's 32 elements and the last
            // one's `nv` (in `lvm`) are read, every group's 32 slots written (padded).
            unsafe {
                for_each_group_ordered::<S, D>(src, s, dst, d, r, g, by_group, |sg, dg, last| {
                    group32_narrow::<S, D, DP>(sg, dg, if last { lvm } else { u32::MAX })
                })
            }
        }

        /// `grid_planned` with full groups of `FULL` slots (when nonzero: 8, one
        /// unmasked half block; 16 or 32, one or two unmasked blocks), and with `ONE` a
        /// last group that is one masked block (`nv < 16`) and, when it writes more than
        /// 16 slots, zero blocks up to `ns == slots == FULL`. A whole last group of 8 is
        /// a half block too: on AMD Zen 4 a masked 8-lane block measured about 3x the
        /// time of an unmasked one (`f32[1,33,33,16]` into 8-slot tiles).
        ///
        /// # Safety
        /// As for `grid_planned`, `FULL == 0 || slots == FULL` (and then every byte-plane
        /// side holds planes of `FULL` slots: [`planes_of`]), and `ONE` only when
        /// `FULL > 0`, `nv < 16` and `ns <= 16 || ns == slots`.
        ///
        /// Its own target features, not `#[inline(always)]`: a closure takes the features
        /// of the function it is written in, and where LLVM leaves this one's group
        /// closure out of line (six instances, 32-slot tiles whose last group holds 16 to
        /// 31 channels) a featureless closure called even `_mm512_storeu_si512` out of
        /// line: 11 cells of 48 to 120 channels into 32-slot tiles, every pair, measured
        /// 0.56x to 0.86x the time with the features.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn planned<
            S: Elem,
            D: Elem,
            const SP: bool,
            const DP: bool,
            const FULL: usize,
            const ONE: bool,
        >(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = if FULL > 0 {
                (fixed_n::<S, FULL>(SP), fixed_n::<D, FULL>(DP))
            } else {
                (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP))
            };
            let full_groups = r.groups() - 1;
            let (nv, ns) = r.group(full_groups);
            let (whole, last) = (Plan::new(r.slots, r.slots), Plan::new(nv, ns));
            let last_half = FULL == 8 && nv == 8 && ns == 8;
            // SAFETY: rows in bounds (contract); every full group holds `slots` elements
            // and slots (`FULL` when nonzero), the last one `nv` and `ns` (`Row::group`).
            // (Copies only: BF16 -> F16 by `block32` measured 1.05x slower with a partial
            // last group, `bf16[1,57,55,40]` into F16 1x8x8x32 tiles.)
            let wide = FULL == 32 && S::DTYPE == D::DTYPE && wide32::<S, D>(sf, df);
            // (F32 sources only: `narrow32` takes F16 where every group is whole, which
            // `grid_whole` walks; the branch stays out of this closure for F16, whose
            // widening made it too large to inline, 1.5x to 2.4x slower.)
            let pair32 = FULL == 32 && narrow32::<S, D>(sf, df, false);
            // BF16 copies into 32-slot byte-plane tiles with a partial last group also go
            // group by group from 8 pixels a row: each group's pixels are then one run of
            // whole lines (80 random cells, the copies into tiles 0.945x geomean, 0.74x
            // to 1.06x; `bf16[1,57,55,40]` into 1x8x8x32 tiles 0.77x to 0.80x). Not out of
            // tiles (1.0x to 1.17x), not with 4 to 7 pixels a row (up to 1.24x), not for
            // F16 or F32 copies into 32-slot tiles (1.05x and 1.02x geomean).
            let by_group = walk_by_group::<S, D>(s, d, r) || (wide && DP && r.npix >= 8);
            unsafe {
                let (lvm, lsm) = (mask32(nv), mask32(ns));
                for_each_group_ordered::<S, D>(src, s, dst, d, r, g, by_group, |sg, dg, is_last| {
                    if wide {
                        let (vm, sm) = if is_last {
                            (lvm, lsm)
                        } else {
                            (u32::MAX, u32::MAX)
                        };
                        block32::<S, D>(sg, sf, dg, df, vm, sm);
                    } else if S::W == 4 && pair32 && !(is_last && (ONE || lsm != u32::MAX)) {
                        group32_narrow::<S, D, DP>(sg, dg, if is_last { lvm } else { u32::MAX });
                    } else if !is_last {
                        if FULL == 8 {
                            block8::<S, D>(sg, sf, dg, df);
                        } else if FULL > 0 {
                            for b in 0..FULL / 16 {
                                block::<S, D>(sg, sf, dg, df, 16 * b, 0xFFFF, 0xFFFF);
                            }
                        } else {
                            whole.run::<S, D>(sg, sf, dg, df);
                        }
                    } else if last_half {
                        block8::<S, D>(sg, sf, dg, df);
                    } else if ONE {
                        block::<S, D>(sg, sf, dg, df, 0, last.vm, last.wm);
                        if ns > 16 {
                            for b in 1..FULL / 16 {
                                zero::<D>(dg, df, 16 * b, 0xFFFF);
                            }
                        }
                    } else if FULL == 32 {
                        // Two blocks of fixed masks (a run-time block loop per pixel
                        // measured 1.3x to 2x slower, see `grid_whole`).
                        let (vm, wm) = (lvm as __mmask16, lsm as __mmask16);
                        block::<S, D>(sg, sf, dg, df, 0, vm, wm);
                        block::<S, D>(sg, sf, dg, df, 16, (lvm >> 16) as _, (lsm >> 16) as _);
                    } else {
                        last.run::<S, D>(sg, sf, dg, df);
                    }
                })
            };
        }

        /// Rows of pixels with few channels (one group of `valid <= 16` elements each,
        /// e.g. RGB images in 16-slot tiles), several pixels per vector: one masked load
        /// takes the channels of `q` pixels, a lane permutation packs them densely
        /// (when the source pixels are apart), one 16-lane conversion converts them, a
        /// second permutation spreads them to the destination pixels' slots with the
        /// padding lanes zeroed (when those are apart), and one store (full width when
        /// every byte is written) writes `q` pixels. A BF16 byte-plane side (pixels of 8,
        /// 16 or 32 slots) is turned into lanes, or back, by byte and quadword shuffles;
        /// where that side's lanes are permuted too, one `vpermb` does both
        /// ([`Lanes::PLANES_PERMUTED`]: the index is then a byte map, and its mask a byte
        /// mask). Lane maps and masks are computed once per grid; index `[0]` serves
        /// chunks of `q` pixels, `[1]` the last `npix % q`. Each side's steps are one of
        /// the [`Lanes`] kinds, constants of the chunk loop (see [`grid_packed`]).
        #[derive(Clone, Copy)]
        struct Packed {
            chunks: usize,
            rem: usize,
            sidx: __m512i,
            didx: __m512i,
            skind: u8,
            dkind: u8,
            /// Pixel slots of a byte-plane side (8 or 16), else 0.
            splanes: usize,
            dplanes: usize,
            /// Source bytes read, compact lanes kept, destination lanes holding data,
            /// destination bytes written.
            load: [u64; 2],
            compact: [u64; 2],
            data: [u64; 2],
            store: [u64; 2],
            /// Bytes from one chunk to the next.
            sstep: usize,
            dstep: usize,
            /// A chunk holds more than 16 lanes (16-bit elements on both sides).
            wide: bool,
        }

        /// The arguments a [`Packed`] plan was built from: element types, sides, row
        /// and pixels a chunk.
        type PackedKey = (DType, DType, Side, Side, Row, usize);

        /// The last few [`Packed`] plans built on a thread, by their arguments, and the
        /// slot the next one replaces. Four: a run's grids alternate between rows of
        /// whole and partial tiles, and between whole and partial tile rows.
        struct LastPacked {
            plans: [Option<(PackedKey, Packed)>; 4],
            next: usize,
        }

        thread_local! {
            /// This thread's [`LastPacked`] (see [`Packed::with`]).
            static LAST_PACKED: std::cell::RefCell<LastPacked> = const {
                std::cell::RefCell::new(LastPacked {
                    plans: [None; 4],
                    next: 0,
                })
            };
        }

        /// How a side of a [`Packed`] chunk is laid out, so which steps the chunk takes
        /// on it: lanes in place (no step), lanes permuted, BF16 byte planes with lanes
        /// permuted (one `vpermb`), or byte planes with lanes in place (a plane shuffle).
        struct Lanes;

        impl Lanes {
            const IN_PLACE: u8 = 0;
            const PERMUTED: u8 = 1;
            const PLANES_PERMUTED: u8 = 2;
            const PLANES: u8 = 3;

            fn of(permute: bool, planes: usize) -> u8 {
                match (permute, planes > 0) {
                    (false, false) => Self::IN_PLACE,
                    (true, false) => Self::PERMUTED,
                    (true, true) => Self::PLANES_PERMUTED,
                    (false, true) => Self::PLANES,
                }
            }
        }

        /// The bytes of `n` pixels `stride` elements of width `w` apart, each holding
        /// elements `0..len` (byte planes of `planes` slots when nonzero).
        fn byte_mask(n: usize, stride: usize, len: usize, w: usize, planes: usize) -> u64 {
            let run = |start: usize, bytes: usize| (u64::MAX >> (64 - bytes)) << start;
            (0..n).fold(0, |m, j| {
                let p = j * stride * w;
                if planes > 0 {
                    m | run(p, len) | run(p + planes, len)
                } else {
                    m | run(p, len * w)
                }
            })
        }

        impl Packed {
            /// Pixels a chunk of row `r`'s packed plan holds, or `None` when the plan does
            /// not apply: more than one group or more than 16 channels, a pixel wider
            /// than a vector, byte planes other than dense pixels of 8, 16 or 32 slots,
            /// or pixel strides that are not whole elements or would overlap.
            fn chunk_pixels<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> Option<usize> {
                let (valid, wlen) = (r.valid, if r.pad { r.slots } else { r.valid });
                if r.groups() != 1 || valid > 16 || r.npix < 2 {
                    return None;
                }
                if !s.pixel.is_multiple_of(S::W) || !d.pixel.is_multiple_of(D::W) {
                    return None;
                }
                let (ps, pd) = (s.pixel / S::W, d.pixel / D::W);
                // A byte-plane side: whole dense pixels of 8, 16 or 32 slots.
                let planes_fit = |f: Fmt, p: usize| match f {
                    Fmt::Planes(pl) => pl == r.slots && p == pl && matches!(pl, 8 | 16 | 32),
                    Fmt::Elements(_) => true,
                };
                if !planes_fit(s.fmt, ps) || !planes_fit(d.fmt, pd) || ps < valid || pd < wlen {
                    return None;
                }
                let (ls, ld) = (64 / S::W, 64 / D::W);
                // Copies of 16-bit elements take a whole vector's 32 lanes (no conversion
                // to fit in 16): twice the pixels per chunk for channels of 9 to 16
                // (`f16[8,64,17,12]` into (2,2) blocks, one pixel a chunk before).
                // F16 <-> BF16 take 32 lanes too, converted as two halves ([`convert32`]):
                // 12 channels out of 16-slot tiles into F16, 0.73x to 0.78x the time
                // (`bf16[1,224,224,12]`, `[1,61,59,12]`), F16 into BF16 0.83x to 0.9x.
                let most = if S::W == 2 && D::W == 2 { 32 } else { 16 };
                let fits = |q: usize| {
                    q * valid <= most && (q - 1) * ps + valid <= ls && (q - 1) * pd + wlen <= ld
                };
                (1..=r.npix).take_while(|&q| fits(q)).last()
            }

            /// Runs `f` on the packed plan of row `r` with at least `min_pixels` pixels a
            /// chunk; `false` (and `f` not run) when the plan does not apply (see
            /// [`Packed::chunk_pixels`]). The chunk
            /// size is settled before the tables are built: small plans have many grids,
            /// and building tables a caller then drops cost them a tenth of their time.
            /// The last plans built on this thread are kept ([`LastPacked`]) and handed
            /// out again for the same arguments: a run's grids mostly share their rows,
            /// and building a plan (about 75 ns) was half the time of `bf16[1,7,7,7]`
            /// out of 1x4x4x8 tiles, four grids.
            fn with<S: Elem, D: Elem>(
                s: Side,
                d: Side,
                r: Row,
                min_pixels: usize,
                f: impl FnOnce(&Packed),
            ) -> bool {
                let Some(q) = Self::chunk_pixels::<S, D>(s, d, r).filter(|&q| q >= min_pixels)
                else {
                    return false;
                };
                let key = (S::DTYPE, D::DTYPE, s, d, r, q);
                LAST_PACKED.with_borrow_mut(|last| {
                    let found = last
                        .plans
                        .iter()
                        .position(|e| e.is_some_and(|(k, _)| k == key));
                    let slot = found.unwrap_or_else(|| {
                        // SAFETY: `Packed` is built only where AVX-512 with BF16 and VBMI
                        // was detected (its callers run under those features).
                        let p = unsafe { Self::build::<S, D>(s, d, r, q) };
                        let slot = last.next % last.plans.len();
                        last.plans[slot] = Some((key, p));
                        last.next = slot + 1;
                        slot
                    });
                    if let Some((_, p)) = &last.plans[slot] {
                        f(p);
                    }
                });
                true
            }

            /// Builds the packed plan of row `r` with `q` pixels a chunk (as
            /// [`Packed::chunk_pixels`] gave it).
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
            fn build<S: Elem, D: Elem>(s: Side, d: Side, r: Row, q: usize) -> Packed {
                let (valid, wlen) = (r.valid, if r.pad { r.slots } else { r.valid });
                let (ps, pd) = (s.pixel / S::W, d.pixel / D::W);
                let planes = |f: Fmt| match f {
                    Fmt::Planes(pl) => pl,
                    Fmt::Elements(_) => 0,
                };
                let (splanes, dplanes) = (planes(s.fmt), planes(d.fmt));
                let lanes = |n: usize, stride: usize, len: usize| {
                    (0..n).fold(0u64, |m, j| m | (((1u64 << len) - 1) << (j * stride)))
                };
                let (mut si, mut di) = ([0u16; 32], [0u16; 32]);
                // Pixel by pixel, channel by channel (no division per lane: this runs
                // once per grid, and small grids are many).
                for j in 0..q {
                    for l in 0..valid {
                        let c = j * valid + l;
                        si[c] = (j * ps + l) as u16;
                        di[j * pd + l] = c as u16;
                    }
                }
                // Lane indices as 16-bit (for 16-bit elements) or 32-bit lanes.
                let vec = |idx: &[u16; 32], w: usize| {
                    if w == 2 {
                        // SAFETY: reads 64 bytes from a 64-byte array.
                        unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) }
                    } else {
                        let wide: [u32; 16] = std::array::from_fn(|k| u32::from(idx[k]));
                        // SAFETY: reads 64 bytes from a 64-byte array.
                        unsafe { _mm512_loadu_si512(wide.as_ptr().cast()) }
                    }
                };
                let rem = r.npix % q;
                let both = |f: &dyn Fn(usize) -> u64| [f(q), f(rem)];
                let (spermute, dpermute) = (ps != valid, pd != valid);
                let (sbytes, dbytes) = (spermute && splanes > 0, dpermute && dplanes > 0);
                // A byte-plane side's lane `l` (`pl`, a power of two, lanes a pixel): its
                // pixel's planes hold its low byte at `l % pl`, its high byte `pl` later.
                let plane_byte = |l: usize, pl: usize, high: bool| {
                    2 * (l & !(pl - 1)) + (l & (pl - 1)) + if high { pl } else { 0 }
                };
                // SAFETY: reads 64 bytes from a 64-byte array.
                let bytes = |idx: &[u8; 64]| unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
                // Compact 16-bit lane `c` from its plane bytes; plane byte `b` from the
                // compact lane of its destination lane. (Built only when used: this runs
                // once per grid, and small grids are many.)
                let join = || {
                    bytes(&std::array::from_fn(|b| {
                        plane_byte(usize::from(si[b / 2]), splanes, b % 2 == 1) as u8
                    }))
                };
                let split = || {
                    let pl = dplanes;
                    bytes(&std::array::from_fn(|b| {
                        let lane = ((b / 2) & !(pl - 1)) + (b & (pl - 1));
                        (2 * usize::from(di[lane]) + usize::from(b & pl != 0)) as u8
                    }))
                };
                // The bytes of lane mask `m`: both bytes of each 16-bit lane, or in a
                // byte-plane side (`pl > 0`) both planes' bytes of each lane.
                let lane_bytes = |mut m: u64, pl: usize| {
                    let mut out = 0u64;
                    while m != 0 {
                        let l = m.trailing_zeros() as usize;
                        out |= match pl {
                            0 => 3 << (2 * l),
                            _ => 1 << plane_byte(l, pl, false) | 1 << plane_byte(l, pl, true),
                        };
                        m &= m - 1;
                    }
                    out
                };
                Packed {
                    chunks: r.npix / q,
                    rem,
                    sidx: if sbytes { join() } else { vec(&si, S::W) },
                    didx: if dbytes { split() } else { vec(&di, D::W) },
                    skind: Lanes::of(spermute, splanes),
                    dkind: Lanes::of(dpermute, dplanes),
                    splanes,
                    dplanes,
                    load: both(&|n| byte_mask(n, ps, valid, S::W, splanes)),
                    compact: both(&|n| match sbytes {
                        true => lane_bytes(lanes(1, 0, n * valid), 0),
                        false => lanes(1, 0, n * valid),
                    }),
                    data: both(&|n| match dbytes {
                        true => lane_bytes(lanes(n, pd, valid), dplanes),
                        false => lanes(n, pd, valid),
                    }),
                    store: both(&|n| byte_mask(n, pd, wlen, D::W, dplanes)),
                    sstep: q * s.pixel,
                    dstep: q * d.pixel,
                    wide: q * valid > 16,
                }
            }

            /// Converts the `q` (`i == 0`) or last `npix % q` (`i == 1`) pixels at
            /// `sp` / `dp`; `SK` and `DK` are `skind` and `dkind`.
            ///
            /// # Safety
            /// Those pixels' elements are readable and slots writable.
            #[inline(always)]
            unsafe fn chunk<S: Elem, D: Elem, const SK: u8, const DK: u8>(
                &self,
                sp: *const u8,
                dp: *mut u8,
                i: usize,
            ) {
                // SAFETY: the byte masks select exactly the chunk's elements and slots
                // (masked-off bytes are not accessed); AVX-512 F/BW enabled by callers.
                unsafe {
                    let x = _mm512_maskz_loadu_epi8(self.load[i], sp.cast());
                    let x = match SK {
                        Lanes::IN_PLACE => x,
                        Lanes::PLANES => from_planes(x, self.splanes),
                        Lanes::PLANES_PERMUTED => {
                            _mm512_maskz_permutexvar_epi8(self.compact[i], self.sidx, x)
                        }
                        _ if S::W == 4 => _mm512_maskz_permutexvar_epi32(
                            self.compact[i] as __mmask16,
                            self.sidx,
                            x,
                        ),
                        _ => _mm512_maskz_permutexvar_epi16(
                            self.compact[i] as __mmask32,
                            self.sidx,
                            x,
                        ),
                    };
                    let y = if S::W == 2 && D::W == 2 && self.wide {
                        convert32::<S, D>(x)
                    } else {
                        convert16::<S, D>(x)
                    };
                    let y = match DK {
                        Lanes::IN_PLACE => y,
                        Lanes::PLANES => to_planes(y, self.dplanes),
                        Lanes::PLANES_PERMUTED => {
                            _mm512_maskz_permutexvar_epi8(self.data[i], self.didx, y)
                        }
                        _ if D::W == 4 => {
                            _mm512_maskz_permutexvar_epi32(self.data[i] as __mmask16, self.didx, y)
                        }
                        _ => {
                            _mm512_maskz_permutexvar_epi16(self.data[i] as __mmask32, self.didx, y)
                        }
                    };
                    if self.store[i] == u64::MAX {
                        _mm512_storeu_si512(dp.cast(), y);
                    } else {
                        _mm512_mask_storeu_epi8(dp.cast(), self.store[i], y);
                    }
                }
            }
        }

        /// `vpermb` indices between 16-bit lanes and BF16 byte planes for the pixels of
        /// `slots` lanes (8, 16 or 32) in 64 bytes: with `to`, byte `j` of a pixel takes
        /// the low byte of lane `j` (`j < slots`) or the high byte of lane `j - slots`;
        /// without, the inverse (lane `i` from bytes `i` and `slots + i`).
        const fn plane_index(slots: usize, to: bool) -> [u8; 64] {
            let mut idx = [0u8; 64];
            let mut b = 0;
            while b < 64 {
                let (base, j) = (b - b % (2 * slots), b % (2 * slots));
                let from = match (to, j < slots, j % 2 == 0) {
                    (true, true, _) => 2 * j,
                    (true, false, _) => 2 * (j - slots) + 1,
                    (false, _, true) => j / 2,
                    (false, _, false) => slots + j / 2,
                };
                idx[b] = (base + from) as u8;
                b += 1;
            }
            idx
        }

        /// [`plane_index`] as a vector (`slots` 8, 16 or 32).
        #[inline(always)]
        fn plane_perm(slots: usize, to: bool) -> __m512i {
            const IDX: [[[u8; 64]; 2]; 3] = [
                [plane_index(8, false), plane_index(8, true)],
                [plane_index(16, false), plane_index(16, true)],
                [plane_index(32, false), plane_index(32, true)],
            ];
            let i = match slots {
                8 => 0,
                16 => 1,
                _ => 2,
            };
            // SAFETY: an unaligned load of 64 bytes of a constant table (SSE2 baseline
            // suffices for `loadu`; the caller's AVX-512 features are enabled).
            unsafe { _mm512_loadu_si512(IDX[i][to as usize].as_ptr().cast()) }
        }

        /// 16-bit lanes to BF16 byte planes, pixel by pixel (pixels of `slots` = 8, 16
        /// or 32 lanes): each pixel's low bytes, then its high bytes. One `vpermb`; 8-slot
        /// pixels stay inside 128-bit lanes, so one byte shuffle.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn to_planes(v: __m512i, slots: usize) -> __m512i {
            if slots == 8 {
                // Per 128-bit lane: [l0 h0 .. l7 h7] -> [l0..l7 h0..h7].
                let split = _mm512_set4_epi32(0x0F0D_0B09, 0x0705_0301, 0x0E0C_0A08, 0x0604_0200);
                return _mm512_shuffle_epi8(v, split);
            }
            _mm512_permutexvar_epi8(plane_perm(slots, true), v)
        }

        /// The inverse of [`to_planes`]. 32-slot pixels by one `vpermb` (1.16x faster
        /// than a quadword permute and a byte shuffle out of 1x8x8x32 tiles,
        /// `bf16[2,33,17,12]`); 16-slot ones keep those two, which measured 1.06x to 1.12x
        /// faster than `vpermb` on Zen 4 for few-channel pixels (`[1,224,224,3]`,
        /// `[4,31,17,5]`, `[2,33,17,12]` out of 1x4x4x16 tiles and (4,4) blocks).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn from_planes(v: __m512i, slots: usize) -> __m512i {
            if slots == 32 {
                return _mm512_permutexvar_epi8(plane_perm(32, false), v);
            }
            let v = if slots == 16 {
                _mm512_permutexvar_epi64(_mm512_set_epi64(7, 5, 6, 4, 3, 1, 2, 0), v)
            } else {
                v
            };
            // Per 128-bit lane: [l0..l7 h0..h7] -> [l0 h0 .. l7 h7].
            let join = _mm512_set4_epi32(0x0F07_0E06, 0x0D05_0C04, 0x0B03_0A02, 0x0901_0800);
            _mm512_shuffle_epi8(v, join)
        }

        /// The 16 elements in the low lanes of `x` (32-bit lanes for 4-byte `S`, 16-bit
        /// lanes otherwise) converted to `D`, in the low lanes of the result.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn convert16<S: Elem, D: Elem>(x: __m512i) -> __m512i {
            let lo = _mm512_castsi512_si256(x);
            match (S::W, D::W) {
                (4, 4) => x,
                (4, _) => _mm512_zextsi256_si512(narrow(S::DTYPE, D::DTYPE, x)),
                (_, 4) => widen(S::DTYPE, lo),
                _ if S::DTYPE == D::DTYPE => x,
                _ => _mm512_zextsi256_si512(narrow(
                    S::DTYPE,
                    D::DTYPE,
                    widen_to(S::DTYPE, D::DTYPE, lo),
                )),
            }
        }

        /// The 32 16-bit lanes of `x` converted from `S` to `D` (both 16-bit; copies
        /// unchanged), as [`convert16`] converts 16.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn convert32<S: Elem, D: Elem>(x: __m512i) -> __m512i {
            if S::DTYPE == DType::F16 && D::DTYPE == DType::BF16 {
                // F16 values widened are never F32 subnormals, so `vcvtne2ps2bf16` of
                // both halves is [`narrow`]'s result.
                let lo = _mm512_cvtph_ps(_mm512_castsi512_si256(x));
                let hi = _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(x));
                // SAFETY: 32 bf16 lanes reinterpreted as the same 64 bytes.
                return unsafe {
                    std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(hi, lo))
                };
            }
            if S::DTYPE == DType::BF16 && D::DTYPE == DType::F16 {
                // A 32-bit lane holds elements 2j (low half) and 2j + 1: shifted up and
                // masked they are F32 values (the NaN quieting left to `vcvtps2ph`, see
                // [`widen_to`]), converted apart and interleaved again by one word
                // permutation ([`PAIR_IDX`]). Widening each half by `vpmovzxwd` first
                // took 1.3x as long in the packed chunks (`bf16[1,61,59,12]` out of (4,4)
                // blocks into F16).
                let even = _mm512_slli_epi32::<16>(x);
                let odd = _mm512_and_si512(x, _mm512_set1_epi32(0xFFFF_0000_u32 as i32));
                let ce = _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(even));
                let co = _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(odd));
                // SAFETY: reads the 64 bytes of a constant table.
                let idx = unsafe { _mm512_loadu_si512(PAIR_IDX.as_ptr().cast()) };
                return _mm512_permutex2var_epi16(
                    _mm512_zextsi256_si512(ce),
                    idx,
                    _mm512_zextsi256_si512(co),
                );
            }
            x
        }

        /// Pixels per chunk when `spread` applies: dense source pixels (elements) of
        /// `valid <= 8` channels into padded destination pixels of `slots` (a power of
        /// two; 8, 16 or 32 for byte planes) consecutive slots, at most 16 output vectors
        /// per chunk.
        fn spread_pixels<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> Option<usize> {
            let px_out = r.slots * D::W;
            let slots_ok = match d.fmt {
                Fmt::Planes(pl) => pl == r.slots && matches!(r.slots, 8 | 16 | 32),
                Fmt::Elements(_) => r.slots.is_power_of_two() && r.slots <= 512,
            };
            let p = (lanes::<S, D>(r) / r.valid)
                .min(r.npix)
                .min(1024 / px_out.max(1));
            // Chunks of whole 64-byte vectors: `spread` runs them with a constant count.
            let p = even_chunk(p, r.npix, |q| (q * px_out).is_multiple_of(64));
            (s.fmt == Fmt::Elements(S::W)
                && slots_ok
                && r.pad
                && s.pixel == r.valid * S::W
                && d.pixel == px_out
                && p >= 2)
                .then_some(p)
        }

        /// The chunk size for rows of `npix` pixels, at most `p`: the largest of at least
        /// half of `p` (and 2) that splits the row evenly and `fits`, so the few-channel
        /// paths run the row's chunks with a constant shape; `p` where none does.
        fn even_chunk(p: usize, npix: usize, fits: impl Fn(usize) -> bool) -> usize {
            (p.div_ceil(2).max(2)..=p)
                .rev()
                .find(|&q| fits(q) && npix.is_multiple_of(q))
                .unwrap_or(p)
        }

        /// Source lanes one chunk of `spread` converts: a 16-lane conversion, or a whole
        /// vector of 32 when 16-bit elements are copied and a row's pixels then make one
        /// chunk (f16[8,28,7,7] into 1x2x4x8 tiles: one chunk of four pixels instead of
        /// two of two, 1.15x faster; rows that stay two chunks, 6 + 2 pixels instead of
        /// 3 + 3 + 2, measured 1.1x slower: bf16[4,30,30,5] into 1x1x8x8 tiles).
        fn lanes<S: Elem, D: Elem>(r: Row) -> usize {
            if S::W == 2 && S::DTYPE == D::DTYPE && r.npix * r.valid <= 32 {
                32
            } else {
                16
            }
        }

        /// Pixels per chunk when `gather` applies: source pixels of `valid <= 8`
        /// channels (padding never read) into dense destination elements.
        fn gather_pixels<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> Option<usize> {
            let p = (16 / r.valid).min(r.npix);
            // `gather` runs equal chunks with a constant pixel count.
            let p = even_chunk(p, r.npix, |_| true);
            let lane = if matches!(s.fmt, Fmt::Planes(_)) {
                1
            } else {
                S::W
            };
            (d.fmt == Fmt::Elements(D::W)
                && (!r.pad || r.slots == r.valid)
                && d.pixel == r.valid * D::W
                && s.pixel >= r.valid * lane
                && p >= 2)
                .then_some(p)
        }

        /// Bytes ahead of a chunk whose lines the few-channel paths ask for. They read
        /// their source by masked loads only, which on Zen 5 do not start the hardware
        /// prefetchers: past L2 such a stream ran at a third of the speed.
        const PREFETCH_AHEAD: usize = 512;

        /// Source bytes of a grid from which the few-channel paths prefetch: below it the
        /// tensor is in cache, and the prefetches cost up to 1.3x (`f16[2,33,17,12]`).
        const PREFETCH_MIN_BYTES: usize = 256 << 10;

        /// Whether the few-channel paths prefetch a grid of rows of `chunks` chunks of
        /// `step` source bytes: it reads at least [`PREFETCH_MIN_BYTES`].
        fn prefetch_source(g: Grid, chunks: usize, step: usize) -> bool {
            g.iter()
                .fold(chunks.saturating_mul(step), |b, l| b.saturating_mul(l.0))
                >= PREFETCH_MIN_BYTES
        }

        static IOTA16: [u16; 32] = {
            let mut a = [0u16; 32];
            let mut i = 0;
            while i < 32 {
                a[i] = i as u16;
                i += 1;
            }
            a
        };
        static IOTA32: [u32; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

        /// The chunk loop of a few-channel path ([`for_each_chunk`] over the grid): where
        /// the rows split into whole chunks (`rest == 0`) whose shape `key` is one of the
        /// listed constants `n` and `ok(n)`, `whole(sp, dp, n)` with `n` that constant, so
        /// the chunk's own loops unroll; else `chunk(sp, dp)` per chunk and `last(sp, dp)`
        /// at each row's end. Unsafe to expand: the caller's safety contract is
        /// `for_each_chunk`'s.
        macro_rules! chunk_loop {
            (
                ($src:expr, $dst:expr, $g:expr, $chunks:expr, $steps:expr, $ahead:expr),
                $rest:expr,
                $key:expr,
                [$($n:literal)*],
                $ok:expr,
                $whole:expr,
                $chunk:expr,
                $last:expr
            ) => {{
                let (whole, ok) = ($whole, $ok);
                match $key {
                    $(k if k == $n && $rest == 0 && ok($n) => unsafe {
                        for_each_chunk(
                            $src, $dst, $g, $chunks, $steps, $ahead,
                            |sp, dp| whole(sp, dp, $n),
                            |_, _| {},
                        )
                    },)*
                    _ => unsafe {
                        for_each_chunk($src, $dst, $g, $chunks, $steps, $ahead, $chunk, $last)
                    },
                }
            }};
        }

        /// CastTess of narrow pixels: each chunk of `p` pixels (`p * valid` contiguous
        /// source elements, at most [`lanes`]) is one masked load and one conversion; each
        /// 64-byte vector of the chunk's output is one permutation of the converted lanes
        /// with zeros in the padding slots (index and zero mask computed once per grid);
        /// into BF16 byte planes (`DP`, so `D` is 16-bit) the permutation and the plane
        /// shuffle are one `vpermb` (0.73x to 0.98x the time of the two, 32 cells of 1 to
        /// 8 channels from every dtype into 8-, 16- and 32-slot tiles and (4,4) blocks).
        ///
        /// # Safety
        /// As for `grid`, and `spread_pixels` returned `p`; `WIDE` when `p * valid > 16`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn spread<S: Elem, D: Elem, const DP: bool, const WIDE: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            p: usize,
        ) {
            const MAXV: usize = 16;
            let (v, slots) = (r.valid, r.slots);
            let px_out = slots * D::W;
            let _ = (s, d);
            let vectors = |n: usize| {
                let bytes = n * px_out;
                let tail = (bytes % 64) / D::W;
                (
                    bytes / 64,
                    if tail == 0 { 0u32 } else { (1u32 << tail) - 1 },
                )
            };
            let nvec = (p * px_out).div_ceil(64);
            let mut idx = [_mm512_setzero_si512(); MAXV];
            let mut keep = [0u32; MAXV];
            let mut keep_bytes = [0u64; MAXV];
            let sh = _mm_cvtsi32_si128(slots.trailing_zeros() as i32);
            // Lane j of vector t is output slot q = t * lanes + j: pixel q >> log2(slots),
            // channel c = q & (slots - 1); it takes converted lane pixel * valid + c
            // when c < valid, else zero.
            // SAFETY: 64-byte reads of 64-byte statics.
            if D::W == 2 {
                let iota = unsafe { _mm512_loadu_si512(IOTA16.as_ptr().cast()) };
                for t in 0..nvec {
                    let q = _mm512_add_epi16(iota, _mm512_set1_epi16((32 * t) as i16));
                    let px = _mm512_srl_epi16(q, sh);
                    let c = _mm512_and_si512(q, _mm512_set1_epi16((slots - 1) as i16));
                    idx[t] =
                        _mm512_add_epi16(_mm512_mullo_epi16(px, _mm512_set1_epi16(v as i16)), c);
                    keep[t] = _mm512_cmplt_epu16_mask(c, _mm512_set1_epi16(v as i16));
                    if DP {
                        // Into byte planes: the lane permutation and the plane shuffle
                        // as one `vpermb` (byte 2i of lane i from byte 2 idx, 2i + 1
                        // from 2 idx + 1), its zero mask moved with the bytes.
                        let to = plane_perm(slots, true);
                        let b = _mm512_add_epi16(
                            _mm512_mullo_epi16(idx[t], _mm512_set1_epi16(514)),
                            _mm512_set1_epi16(256),
                        );
                        idx[t] = _mm512_permutexvar_epi8(to, b);
                        let k = _mm512_permutexvar_epi8(to, _mm512_movm_epi16(keep[t]));
                        keep_bytes[t] = _mm512_movepi8_mask(k);
                    }
                }
            } else {
                let iota = unsafe { _mm512_loadu_si512(IOTA32.as_ptr().cast()) };
                for t in 0..nvec {
                    let q = _mm512_add_epi32(iota, _mm512_set1_epi32((16 * t) as i32));
                    let px = _mm512_srl_epi32(q, sh);
                    let c = _mm512_and_si512(q, _mm512_set1_epi32((slots - 1) as i32));
                    idx[t] =
                        _mm512_add_epi32(_mm512_mullo_epi32(px, _mm512_set1_epi32(v as i32)), c);
                    keep[t] = u32::from(_mm512_cmplt_epu32_mask(c, _mm512_set1_epi32(v as i32)));
                }
            }
            let (full_chunks, rest) = (r.npix / p, r.npix % p);
            let lane_mask = |n: usize| ((1u64 << n) - 1) as u32;
            let chunk_full = (lane_mask(p * v), vectors(p));
            let chunk_rest = (lane_mask(rest * v), vectors(rest));
            let chunk = |sp: *const u8, dp: *mut u8, (lm, (nfull, tail)): (u32, (usize, u32))| {
                // SAFETY: lanes in `lm` are the chunk's readable elements; `nfull` whole
                // vectors and the units of `tail` after them are the chunk's slots.
                unsafe {
                    let x = if S::W == 4 {
                        _mm512_maskz_loadu_epi32(lm as __mmask16, sp.cast())
                    } else if WIDE {
                        _mm512_maskz_loadu_epi16(lm, sp.cast())
                    } else {
                        _mm512_zextsi256_si512(_mm256_maskz_loadu_epi16(lm as __mmask16, sp.cast()))
                    };
                    let x = convert16::<S, D>(x);
                    let out = |t: usize| {
                        if DP {
                            _mm512_maskz_permutexvar_epi8(keep_bytes[t], idx[t], x)
                        } else if D::W == 2 {
                            _mm512_maskz_permutexvar_epi16(keep[t], idx[t], x)
                        } else {
                            _mm512_maskz_permutexvar_epi32(keep[t] as __mmask16, idx[t], x)
                        }
                    };
                    for t in 0..nfull {
                        _mm512_storeu_si512(dp.add(64 * t).cast(), out(t));
                    }
                    if tail != 0 {
                        let q = dp.add(64 * nfull);
                        if D::W == 2 {
                            _mm512_mask_storeu_epi16(q.cast(), tail, out(nfull));
                        } else {
                            _mm512_mask_storeu_epi32(q.cast(), tail as __mmask16, out(nfull));
                        }
                    }
                }
            };
            let (sstep, dstep) = (p * v * S::W, p * px_out);
            let prefetch = prefetch_source(g, full_chunks + 1, sstep);
            let ahead = prefetch.then_some(PREFETCH_AHEAD);
            let steps = (sstep, dstep);
            // Rows of whole chunks of whole vectors take the vector count as a constant:
            // its run-time loop and tail test cost about as much as the chunk
            // (`f32[1,224,224,3]` into BF16 1x4x4x16 tiles: 0.61x to 0.65x the time).
            // SAFETY (both loops): rows in bounds (contract); chunks partition each row's
            // pixels, `rest` of them after its `full_chunks` whole ones.
            chunk_loop!(
                (src, dst, g, full_chunks, steps, ahead),
                rest,
                chunk_full.1 .0,
                [1 2 3 4 8],
                |_| chunk_full.1 .1 == 0,
                |sp, dp, n| chunk(sp, dp, (chunk_full.0, (n, 0))),
                |sp, dp| chunk(sp, dp, chunk_full),
                |sp, dp| if rest != 0 {
                    chunk(sp, dp, chunk_rest)
                }
            )
        }

        /// CastUntess of narrow pixels: the `valid` channels of each of `p` source
        /// pixels go to consecutive lanes by masked loads skewed by `q * valid` lanes
        /// (padding masked off, never read), are converted once and stored densely with
        /// one masked store.
        ///
        /// # Safety
        /// As for `grid`, and `gather_pixels` returned `p`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn gather<S: Elem, D: Elem, const SP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            p: usize,
        ) {
            let v = r.valid;
            let pm = u32::from(mask(v));
            let lane = if SP { 1 } else { S::W };
            let plane = match s.fmt {
                Fmt::Planes(pl) => pl,
                Fmt::Elements(_) => 0,
            };
            // Pixel q's load starts `q * valid` lanes before its first element:
            // `q * (pixel - valid * lane)` bytes after the chunk's first pixel.
            let skew = s.pixel - v * lane;
            let chunk = |sp: *const u8, dp: *mut u8, n: usize| {
                // SAFETY: load q reads exactly the `valid` elements of pixel q (lanes
                // q*valid.. of a pointer at or after the chunk's first pixel); other lanes
                // are masked off. The `n * valid` destination elements are writable.
                unsafe {
                    let x = if SP {
                        let (mut lo, mut hi) = (_mm_setzero_si128(), _mm_setzero_si128());
                        for q in 0..n {
                            let a = sp.add(q * skew);
                            let m = (pm << (q * v)) as __mmask16;
                            lo = _mm_mask_loadu_epi8(lo, m, a.cast());
                            hi = _mm_mask_loadu_epi8(hi, m, a.add(plane).cast());
                        }
                        _mm512_zextsi256_si512(_mm256_set_m128i(
                            _mm_unpackhi_epi8(lo, hi),
                            _mm_unpacklo_epi8(lo, hi),
                        ))
                    } else if S::W == 4 {
                        let mut a = _mm512_setzero_si512();
                        for q in 0..n {
                            let m = (pm << (q * v)) as __mmask16;
                            a = _mm512_mask_loadu_epi32(a, m, sp.add(q * skew).cast());
                        }
                        a
                    } else {
                        let mut a = _mm256_setzero_si256();
                        for q in 0..n {
                            let m = (pm << (q * v)) as __mmask16;
                            a = _mm256_mask_loadu_epi16(a, m, sp.add(q * skew).cast());
                        }
                        _mm512_zextsi256_si512(a)
                    };
                    let y = convert16::<S, D>(x);
                    let m = mask(n * v);
                    if D::W == 4 {
                        _mm512_mask_storeu_epi32(dp.cast(), m, y);
                    } else {
                        _mm256_mask_storeu_epi16(dp.cast(), m, _mm512_castsi512_si256(y));
                    }
                }
            };
            let (full_chunks, rest) = (r.npix / p, r.npix % p);
            let (sstep, dstep) = (p * s.pixel, p * d.pixel);
            let prefetch = prefetch_source(g, full_chunks + 1, sstep);
            let ahead = prefetch.then_some(PREFETCH_AHEAD.max(sstep));
            let steps = (sstep, dstep);
            // Rows of whole chunks take the pixel count as a constant (its load loop
            // unrolled): `f32[1,224,224,3]` out of 1x4x4x16 tiles into BF16 0.54x to
            // 0.66x the time. Not 8 pixels of byte planes (16 merging byte loads):
            // `bf16[2,31,32,2]` out of 1x8x8x32 tiles measured 1.26x slower unrolled.
            // SAFETY (both loops): rows in bounds (contract); chunks partition each row's
            // pixels, `rest` of them after its `full_chunks` whole ones.
            chunk_loop!(
                (src, dst, g, full_chunks, steps, ahead),
                rest,
                p,
                [2 3 4 5 8],
                |n| n < 8 || !SP,
                |sp, dp, n| chunk(sp, dp, n),
                |sp, dp| chunk(sp, dp, p),
                |sp, dp| if rest != 0 {
                    chunk(sp, dp, rest)
                }
            )
        }

        /// Runs a [`Packed`] plan over every row of the grid, in the instance of the chunk
        /// loop for its two sides' [`Lanes`] kinds: with the kinds tested per chunk the
        /// loop took 1.03x to 1.73x the time on Zen 5 (72 cells of 2 to 15 channels
        /// taking this plan, every dtype pair, 8-, 16- and 32-slot tiles and (4,4) blocks:
        /// 1.29x geomean).
        ///
        /// # Safety
        /// As for `grid`, with `p` built by `Packed::with` for this row.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_packed<S: Elem, D: Elem>(src: *const u8, dst: *mut u8, g: Grid, p: &Packed) {
            // Byte-plane kinds only for BF16 sides (no instances of them otherwise).
            macro_rules! with_dkind {
                ($sk:expr) => {
                    if const { bf16::<D>() } && p.dkind == Lanes::PLANES_PERMUTED {
                        grid_packed_as::<S, D, $sk, { Lanes::PLANES_PERMUTED }>(src, dst, g, p)
                    } else if const { bf16::<D>() } && p.dkind == Lanes::PLANES {
                        grid_packed_as::<S, D, $sk, { Lanes::PLANES }>(src, dst, g, p)
                    } else if p.dkind == Lanes::PERMUTED {
                        grid_packed_as::<S, D, $sk, { Lanes::PERMUTED }>(src, dst, g, p)
                    } else {
                        grid_packed_as::<S, D, $sk, { Lanes::IN_PLACE }>(src, dst, g, p)
                    }
                };
            }
            // SAFETY: same contract; the kinds are `p`'s.
            unsafe {
                if const { bf16::<S>() } && p.skind == Lanes::PLANES_PERMUTED {
                    with_dkind!({ Lanes::PLANES_PERMUTED })
                } else if const { bf16::<S>() } && p.skind == Lanes::PLANES {
                    with_dkind!({ Lanes::PLANES })
                } else if p.skind == Lanes::PERMUTED {
                    with_dkind!({ Lanes::PERMUTED })
                } else {
                    with_dkind!({ Lanes::IN_PLACE })
                }
            }
        }

        /// [`grid_packed`] for sides of kinds `SK` and `DK`. The chunk loop is written
        /// out here, not taken from [`for_each_chunk`] as in `spread` and `gather` (whose
        /// constant-shape loops call the chunk from one place): the walker taking this
        /// chunk as a closure for both a row's whole chunks and its rest measured 5%
        /// slower on `[1,224,224,3]` CastUntess from 16-slot tiles (the closure was not
        /// inlined at both of its call sites; constant chunks in `spread` called from both
        /// places measured 1.1x to 1.37x slower, round 35; this loop by `for_each_chunk`
        /// with the chunk an `#[inline(always)]` method 1.08x to 1.10x slower on BF16
        /// copies and BF16 -> F16 out of 16-slot tiles).
        ///
        /// # Safety
        /// As for `grid_packed`, with `SK == p.skind` and `DK == p.dkind`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_packed_as<S: Elem, D: Elem, const SK: u8, const DK: u8>(
            src: *const u8,
            dst: *mut u8,
            g: Grid,
            p: &Packed,
        ) {
            let prefetch = prefetch_source(g, p.chunks + 1, p.sstep);
            // SAFETY: rows in bounds (contract); chunk `c` holds the row's pixels
            // c*q .. c*q+q, the last one the remaining npix % q.
            unsafe {
                for_each_row(src, dst, g, |sj, dj| {
                    let (mut sp, mut dp) = (sj, dj);
                    for _ in 0..p.chunks {
                        if prefetch {
                            prefetch_lines(sp.wrapping_add(PREFETCH_AHEAD), p.sstep);
                        }
                        p.chunk::<S, D, SK, DK>(sp, dp, 0);
                        sp = sp.wrapping_add(p.sstep);
                        dp = dp.wrapping_add(p.dstep);
                    }
                    if p.rem > 0 {
                        p.chunk::<S, D, SK, DK>(sp, dp, 1);
                    }
                })
            };
        }

        /// [`super::super::zero_grid`] by 64-byte masked stores ([`zero_bytes`] per piece).
        ///
        /// # Safety
        /// AVX-512 F/BW available; every piece writable.
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        pub unsafe fn zero_grid(p: *mut u8, counts: [usize; 2], steps: [usize; 2], len: usize) {
            if (1..=32).contains(&len) {
                // Pieces of up to 32 bytes (alignment gaps and missing pixels of small
                // tiles, thousands of them): one 32-byte masked store each, its mask made
                // once (Zen 4 stores 32 bytes a cycle, 64 in two: bf16[1,60,60,12] into
                // 1x1x1x16 tiles 1.1x faster than 64-byte stores).
                let (z, m) = (_mm256_setzero_si256(), u32::MAX >> (32 - len));
                for a in 0..counts[0] {
                    let mut q = p.wrapping_add(a * steps[0]);
                    for _ in 0..counts[1] {
                        // SAFETY: piece (a, b) is writable (caller); `m` keeps `len` bytes.
                        unsafe { _mm256_mask_storeu_epi8(q.cast(), m, z) };
                        q = q.wrapping_add(steps[1]);
                    }
                }
                return;
            }
            for a in 0..counts[0] {
                for b in 0..counts[1] {
                    let q = p.wrapping_add(a * steps[0] + b * steps[1]);
                    // SAFETY: piece (a, b) is writable (caller). Pieces above 256 bytes
                    // (whole tile bodies) go to `memset`: masked stores measured 1.15x
                    // slower on 2 KiB bodies (f16[1,1,97,64] into (4,4) blocks).
                    unsafe {
                        if len > 256 {
                            std::ptr::write_bytes(q, 0, len)
                        } else {
                            zero_bytes(q, len)
                        }
                    };
                }
            }
        }

        /// Zeros `len` bytes at `p` with 64-byte masked stores (intrinsics, so the loop
        /// is not turned back into a `memset` call).
        ///
        /// # Safety
        /// AVX-512 F/BW available; `p` valid for writes of `len` bytes.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        pub unsafe fn zero_bytes(p: *mut u8, len: usize) {
            let mut k = 0;
            // Masked stores throughout, also of whole 64-byte pieces: into lines outside
            // L1, plain stores measured 1.3x slower (the missing pixels of f32[1,7,7,2048]
            // in 1x4x4x16 tiles, 64 and 256 bytes each).
            while k < len {
                let m = u64::MAX >> (64 - (len - k).min(64));
                // SAFETY: the unmasked bytes are `p[k..min(k + 64, len)]` (caller).
                unsafe { _mm512_mask_storeu_epi8(p.add(k).cast(), m, _mm512_setzero_si512()) };
                k += 64;
            }
        }

        /// Zeros the slots `k..` of the lanes in `m` (direct format).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn zero<D: Elem>(dp: *mut u8, df: Fmt, k: usize, m: __mmask16) {
            // SAFETY: unmasked lanes are writable slots (caller).
            unsafe {
                if D::W == 4 {
                    _mm512_mask_storeu_epi32(dp.add(4 * k).cast(), m, _mm512_setzero_si512());
                } else {
                    store16(dp, df, k, m, _mm256_setzero_si256());
                }
            }
        }

        /// Grids with a strided side that [`transposed`] does not take (strided pixels
        /// as well as strided channels, or both sides strided): 16 elements at a time
        /// gathered into a stack buffer, converted by the same block, and scattered.
        ///
        /// # Safety
        /// As for `grid`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_strided<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let mut a = [0u32; 16];
            let mut b = [0u32; 16];
            let (ap, bp) = (a.as_mut_ptr().cast::<u8>(), b.as_mut_ptr().cast::<u8>());
            let (af, bf) = (Fmt::Elements(S::W), Fmt::Elements(D::W));
            let (sf, df) = (s.fmt, d.fmt);
            // SAFETY: groups in bounds (contract); elements k..k+v readable and slots
            // k..k+w writable; the buffers hold 16 elements of up to 4 bytes.
            unsafe {
                for_each_group::<S, D>(src, s, dst, d, r, g, |sp, dp, nv, ns| {
                    let mut k = 0;
                    while k < ns {
                        let (v, w) = (nv.saturating_sub(k).min(16), (ns - k).min(16));
                        for l in 0..v {
                            write::<S>(ap, af, l, read::<S>(sp, sf, k + l));
                        }
                        block::<S, D>(ap, af, bp, bf, 0, mask(v), 0xFFFF);
                        for l in 0..w {
                            write::<D>(dp, df, k + l, read::<D>(bp, bf, l));
                        }
                        k += 16;
                    }
                })
            };
        }

        /// A side whose consecutive elements are `r >= 2` lanes apart, 16 of them within
        /// two vectors (16-bit elements 4, 6 or 8 bytes apart, F32 elements 8 apart: an
        /// interleaved or every-other-element view): `full` is the byte mask of 16
        /// elements, `idx` the lane of element `j` (for loads) and `lo`/`hi` the element
        /// of each lane of the two vectors (for stores).
        #[derive(Clone, Copy)]
        struct Narrow {
            stride: usize,
            full: u128,
            idx: __m512i,
            lo: __m512i,
            hi: __m512i,
        }

        impl Narrow {
            /// The plan of format `f` for elements of width `w`: `Some(None)` when direct,
            /// `Some(Some(..))` when narrow, `None` otherwise.
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
            fn of(f: Fmt, w: usize) -> Option<Option<Narrow>> {
                let st = match f {
                    Fmt::Planes(_) => return Some(None),
                    Fmt::Elements(st) if st == w => return Some(None),
                    Fmt::Elements(st) => st,
                };
                if st % w != 0 || st < 2 * w || 15 * st + w > 128 {
                    return None;
                }
                let r = st / w;
                let full = (0..16).fold(0u128, |m, j| m | ((1u128 << w) - 1) << (j * st));
                let lanes = 64 / w;
                let vec = |f: &dyn Fn(usize) -> usize| {
                    if w == 2 {
                        let a: [u16; 32] = std::array::from_fn(|m| f(m) as u16);
                        // SAFETY: reads the 64 bytes of `a`.
                        unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
                    } else {
                        let a: [u32; 16] = std::array::from_fn(|m| f(m) as u32);
                        // SAFETY: reads the 64 bytes of `a`.
                        unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
                    }
                };
                Some(Some(Narrow {
                    stride: st,
                    full,
                    idx: vec(&|j| j * r),
                    lo: vec(&|m| (m / r).min(lanes - 1)),
                    hi: vec(&|m| ((lanes + m) / r).min(lanes - 1)),
                }))
            }

            /// The byte masks (first and second vector) of `n >= 1` elements.
            fn masks(&self, n: usize, w: usize) -> (u64, u64) {
                let m = self.full & (u128::MAX >> (128 - ((n - 1) * self.stride + w)));
                (m as u64, (m >> 64) as u64)
            }
        }

        /// Grids with a narrow strided side (see [`Narrow`]) and a direct or narrow other
        /// side: the 16 elements of a block are one or two masked byte loads and a lane
        /// permutation (stores: a permutation and masked byte stores, so the gaps
        /// between elements are never written), instead of `grid_strided`'s element
        /// loop (CastUntess into a BF16 view of every other 2-byte slot took 30x the
        /// contiguous Cast). Returns false, doing nothing, for other formats.
        ///
        /// # Safety
        /// As for `grid`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn grid_narrow<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) -> bool {
            let (Some(sn), Some(dn)) = (Narrow::of(s.fmt, S::W), Narrow::of(d.fmt, D::W)) else {
                return false;
            };
            let load = |sp: *const u8, k: usize, v: usize| -> __m512i {
                // SAFETY: elements k..k + v of the group are readable (below); the masks
                // select exactly their bytes.
                unsafe {
                    match sn {
                        Some(n) => {
                            let (ml, mh) = n.masks(v, S::W);
                            let p = sp.add(k * n.stride);
                            let lo = _mm512_maskz_loadu_epi8(ml, p.cast());
                            let hi = _mm512_maskz_loadu_epi8(mh, p.wrapping_add(64).cast());
                            if S::W == 4 {
                                _mm512_permutex2var_epi32(lo, n.idx, hi)
                            } else {
                                _mm512_permutex2var_epi16(lo, n.idx, hi)
                            }
                        }
                        None if S::W == 4 => {
                            _mm512_maskz_loadu_epi32(mask(v), sp.add(4 * k).cast())
                        }
                        None => _mm512_zextsi256_si512(load16(sp, s.fmt, k, mask(v))),
                    }
                }
            };
            let store = |dp: *mut u8, k: usize, w: usize, y: __m512i| {
                // SAFETY: slots k..k + w of the group are writable (below); the masks
                // select exactly their bytes.
                unsafe {
                    match dn {
                        Some(n) => {
                            let (ml, mh) = n.masks(w, D::W);
                            let p = dp.add(k * n.stride);
                            let (lo, hi) = if D::W == 4 {
                                (
                                    _mm512_permutexvar_epi32(n.lo, y),
                                    _mm512_permutexvar_epi32(n.hi, y),
                                )
                            } else {
                                (
                                    _mm512_permutexvar_epi16(n.lo, y),
                                    _mm512_permutexvar_epi16(n.hi, y),
                                )
                            };
                            _mm512_mask_storeu_epi8(p.cast(), ml, lo);
                            _mm512_mask_storeu_epi8(p.wrapping_add(64).cast(), mh, hi);
                        }
                        None if D::W == 4 => {
                            _mm512_mask_storeu_epi32(dp.add(4 * k).cast(), mask(w), y)
                        }
                        None => store16(dp, d.fmt, k, mask(w), _mm512_castsi512_si256(y)),
                    }
                }
            };
            // SAFETY: groups in bounds (contract): elements below nv readable, slots
            // below ns writable; lanes past the converted elements are zero, so padding
            // slots get zero bits.
            unsafe {
                for_each_group::<S, D>(src, s, dst, d, r, g, |sp, dp, nv, ns| {
                    let mut k = 0;
                    while k < ns {
                        let (v, w) = (nv.saturating_sub(k).min(16), (ns - k).min(16));
                        let x = if v > 0 {
                            load(sp, k, v)
                        } else {
                            _mm512_setzero_si512()
                        };
                        store(dp, k, w, convert16::<S, D>(x));
                        k += 16;
                    }
                })
            };
            true
        }

        /// Strided channels with dense pixels on one side (NCHW data, or a strided view
        /// of it, against tiled pixels) is a transpose, run here instead of through
        /// `grid_strided`'s scalar gather: the strided side's pixels are taken in chunks
        /// of 16 consecutive elements (across the W tiles of a row when its pixel run
        /// continues from tile to tile), and each block of up to 16 channels of a group
        /// is one 16x16 transpose of 32-bit lanes in registers (16-bit elements move as
        /// channel pairs, 8 rows). CastTess loads 16 pixels of each channel (one load
        /// per channel run, masked for a partial chunk), converts them, transposes and
        /// stores every pixel's slots with the channel padding zeroed; CastUntess loads
        /// each pixel's channels, transposes, converts (F32 to 16 bits: converts each
        /// pixel as it loads it) and stores each channel's pixels with one store.
        /// Covers every dtype pair, 4- and 2-byte elements and BF16 byte planes on the
        /// direct side. Returns `false`, touching nothing, when the grid is not this
        /// case (then `grid_strided` runs it): both sides strided, or strided pixels on
        /// the strided side.
        ///
        /// # Safety
        /// As for `grid`.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn transposed<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) -> bool {
            // SAFETY: same contract; the callees' conditions (the side's format and
            // dense pixels, the other side direct, `SP`/`DP` its variant) hold here.
            unsafe {
                match (s.fmt, d.fmt) {
                    (Fmt::Elements(cs), df) if s.pixel == S::W && cs != S::W && direct::<D>(df) => {
                        if matches!(df, Fmt::Planes(_)) {
                            tess_t::<S, D, true>(src, s, cs, dst, d, r, g)
                        } else {
                            tess_t::<S, D, false>(src, s, cs, dst, d, r, g)
                        }
                    }
                    (sf, Fmt::Elements(cs)) if d.pixel == D::W && cs != D::W && direct::<S>(sf) => {
                        if matches!(sf, Fmt::Planes(_)) {
                            untess_t::<S, D, true>(src, s, dst, d, cs, r, g)
                        } else {
                            untess_t::<S, D, false>(src, s, dst, d, cs, r, g)
                        }
                    }
                    _ => return false,
                }
            }
            true
        }

        /// Runs `$body` with `$i` bound to each of 0..16 in turn, unrolled, so that arrays
        /// of vectors indexed by `$i` stay in registers.
        macro_rules! seq16 {
            ($i:ident => $body:block) => {
                seq16!(@ $i $body 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
            };
            (@ $i:ident $body:block $($n:literal)*) => {
                $({
                    let $i: usize = $n;
                    $body
                })*
            };
        }

        /// `vpermt2d` indices interleaving two rows' lanes `8x..8x + 8` (`[x]`), and
        /// picking pixel `j`'s four lanes from two such interleavings (`[2 + j]`).
        const NARROW_IDX: [[u32; 16]; 10] = {
            let mut t = [[0u32; 16]; 10];
            let mut x = 0;
            while x < 2 {
                let mut j = 0;
                while j < 8 {
                    t[x][2 * j] = (8 * x + j) as u32;
                    t[x][2 * j + 1] = (16 + 8 * x + j) as u32;
                    j += 1;
                }
                x += 1;
            }
            let mut j = 0;
            while j < 8 {
                let l = 2 * j as u32;
                t[2 + j][0] = l;
                t[2 + j][1] = l + 1;
                t[2 + j][2] = 16 + l;
                t[2 + j][3] = 17 + l;
                j += 1;
            }
            t
        };

        /// [`transpose16`] of a matrix whose rows from 4 on are zero (at most 4
        /// channels, or channel pairs, per pixel): rows 0/1 and 2/3 are interleaved
        /// (4 `vpermt2d`), then each pixel's four lanes are one zero-masked `vpermt2d`
        /// of them: 20 shuffles (the network is 64 before the compiler folds the zero
        /// rows).
        #[inline(always)]
        fn transpose4x16(v: &mut [__m512i; 16]) {
            // SAFETY: 64-byte reads of the 64-byte rows of a constant table; register
            // permutations (AVX-512 F enabled by callers).
            unsafe {
                let idx = |k: usize| _mm512_loadu_si512(NARROW_IDX[k].as_ptr().cast());
                let a = [
                    _mm512_permutex2var_epi32(v[0], idx(0), v[1]),
                    _mm512_permutex2var_epi32(v[0], idx(1), v[1]),
                ];
                let b = [
                    _mm512_permutex2var_epi32(v[2], idx(0), v[3]),
                    _mm512_permutex2var_epi32(v[2], idx(1), v[3]),
                ];
                seq16!(i => {
                    v[i] = _mm512_maskz_permutex2var_epi32(0xF, a[i / 8], idx(2 + i % 8), b[i / 8]);
                });
            }
        }

        /// The lanes (or, `bytes`, the byte-plane bytes) of `n` pixels of `TC` slots
        /// whose first `nv` elements are valid.
        fn unit_mask<const TC: usize>(n: usize, nv: usize, bytes: bool) -> u32 {
            let (unit, stride) = if bytes {
                (((1u32 << nv) - 1) * (1 + (1 << TC)), 2 * TC)
            } else {
                ((1u32 << nv) - 1, TC)
            };
            (0..n).fold(0, |m, j| m | unit << (j * stride))
        }

        /// Pixels cut into groups of `TC` = 2 or 4 slots against dense channels (see
        /// `units_fit`), `TESS` the direction: a small-unit block transpose. Each chunk of
        /// `16 / TC` pixels of a tile row (one after another on the tiled side; the flat
        /// side's pixels anywhere, so a tile's H rows join its W pixels) and each block
        /// of 16 channels is one transpose of `TC`-lane units in registers: CastTess
        /// loads the chunk's pixels' 16 channels, CastUntess its `16 / TC` groups, one
        /// load each, and the transpose turns one into the other. Group by group, each
        /// group was a masked load and store of 2 or 4 elements: `f16[1,56,56,64]` into
        /// 1x4x4x2 tiles took 24x the contiguous Cast.
        ///
        /// # Safety
        /// As for `grid`, and `units_fit` returned `Some(TESS)`; `TC == r.slots`; `PL`:
        /// the tiled side is BF16 byte planes.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn units<S: Elem, D: Elem, const TC: usize, const TESS: bool, const PL: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let p_max = 16 / TC;
            let (t, f) = if TESS { (d, s) } else { (s, d) };
            // Pieces of many chunks only where the tiled groups alias in L1 (see
            // `UNITS_PIECE`); elsewhere chunk by chunk, each pixel's channels read at once
            // (1.2x faster for `f16[1,56,56,64]` into 1x4x4x2 tiles, groups 12.25 KiB apart).
            let pieces = t.group.is_multiple_of(super::super::GROUP_OUTER_ALIASED);
            let (nv, nb) = (r.valid, r.valid.div_ceil(16));
            let planes = _mm512_loadu_si512(const { small_planes_idx(TC, !TESS) }.as_ptr().cast());
            // 16 16-bit source elements to and from 32-bit lanes (4-byte ones stay).
            let to32 = |x: __m256i| _mm512_cvtepu16_epi32(x);
            let from32 = |x: __m512i| {
                if S::W == 4 {
                    x
                } else {
                    _mm512_zextsi256_si512(_mm512_cvtepi32_epi16(x))
                }
            };
            // SAFETY: rows in bounds (contract). A run's `len` pixels follow each other
            // on the tiled side from the row's first (`t.pixel` apart, a joined level
            // continuing them) and lie at `off` on the flat side; loads read the valid
            // channels of the chunk's pixels (flat) or of its groups' slots (tiled, by
            // the unit masks), stores write a group's slots of the chunk's pixels (tiled:
            // all `TC`, padding zero from the zeroed lanes) or the valid channels.
            unsafe {
                let walk = (r, g, t, f, p_max, nb, pieces);
                for_each_unit_chunk(src, dst, walk, TESS, |tc_at, fb, off, n, b| {
                    let c0 = 16 * b;
                    let vb = (nv - c0).min(16);
                    let gb = vb.div_ceil(TC);
                    let g0 = b * p_max;
                    let mut v = [_mm512_setzero_si512(); 16];
                    if TESS {
                        let cm = mask(vb);
                        seq16!(i => {
                            if i < 8 && i < n {
                                let p = fb.wrapping_add(off[i] + c0 * S::W);
                                v[i] = if S::W == 4 {
                                    _mm512_maskz_loadu_epi32(cm, p.cast())
                                } else {
                                    to32(_mm256_maskz_loadu_epi16(cm, p.cast()))
                                };
                            }
                        });
                        transpose_units::<TC>(&mut v);
                        let wm = mask(n * TC);
                        seq16!(k => {
                            if k < 8 && k < gb {
                                let q = tc_at.wrapping_add((g0 + k) * d.group);
                                let y = convert16::<S, D>(from32(v[k]));
                                if D::W == 4 {
                                    _mm512_mask_storeu_epi32(q.cast(), wm, y);
                                } else {
                                    let y = if PL { _mm512_shuffle_epi8(y, planes) } else { y };
                                    _mm256_mask_storeu_epi16(q.cast(), wm, _mm512_castsi512_si256(y));
                                }
                            }
                        });
                    } else {
                        seq16!(k => {
                            if k < 8 && k < gb {
                                let nvg = (vb - k * TC).min(TC);
                                let p = tc_at.wrapping_add((g0 + k) * s.group);
                                // Whole groups of a whole chunk: every lane.
                                let whole = n == p_max && nvg == TC;
                                let lanes = |bytes: bool| {
                                    if whole {
                                        u32::MAX
                                    } else {
                                        unit_mask::<TC>(n, nvg, bytes)
                                    }
                                };
                                v[k] = if S::W == 4 {
                                    let m = lanes(false) as __mmask16;
                                    _mm512_maskz_loadu_epi32(m, p.cast())
                                } else if PL {
                                    let m = lanes(true);
                                    let x = _mm256_maskz_loadu_epi8(m, p.cast());
                                    let x = _mm512_shuffle_epi8(_mm512_zextsi256_si512(x), planes);
                                    to32(_mm512_castsi512_si256(x))
                                } else {
                                    let m = lanes(false) as __mmask16;
                                    to32(_mm256_maskz_loadu_epi16(m, p.cast()))
                                };
                            }
                        });
                        transpose_units::<TC>(&mut v);
                        let cm = mask(vb);
                        seq16!(i => {
                            if i < 8 && i < n {
                                let q = fb.wrapping_add(off[i] + c0 * D::W);
                                let y = convert16::<S, D>(from32(v[i]));
                                if D::W == 4 {
                                    _mm512_mask_storeu_epi32(q.cast(), cm, y);
                                } else {
                                    _mm256_mask_storeu_epi16(q.cast(), cm, _mm512_castsi512_si256(y));
                                }
                            }
                        });
                    }
                })
            }
        }

        /// CastTess from strided channels of dense pixels (see [`transposed`]).
        ///
        /// # Safety
        /// As for `grid`; `s.fmt == Fmt::Elements(cs)`, `s.pixel == S::W`, `d.fmt`
        /// direct with `DP` its variant.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn tess_t<S: Elem, D: Elem, const DP: bool>(
            src: *const u8,
            s: Side,
            cs: usize,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let df = fixed::<D>(d.fmt, DP);
            let runs = Runs::new(r, g, (g[0].1, S::W), (d.pixel, g[0].2), 16);
            // SAFETY: rows in bounds (contract). A run's pixels are consecutive source
            // elements (`s.pixel == S::W`, and across W tiles `g[0].1 == npix * S::W`)
            // and direct pixels at `base` from their chunk's first, exactly the grid's pixels; each block
            // reads lanes below `n` of channels below `nv` and writes slots below `ns`
            // of pixels below `n`, all inside their groups.
            unsafe {
                runs.for_each_chunk(src, s.group, dst, d.group, r, |sg, dg, p0, toff, nv, ns| {
                    let n = (runs.len - p0).min(runs.chunk);
                    let dc = dg.wrapping_add(toff);
                    let b = TessBlock {
                        sp: sg.add(p0 * S::W),
                        cs,
                        pm: mask(n),
                        dg: dc,
                        off: &runs.base,
                        n,
                        df,
                    };
                    let mut k = 0;
                    while k < ns {
                        let nvb = nv.saturating_sub(k).min(16);
                        let wm = mask((ns - k).min(16));
                        match nvb {
                            0 => b.run::<S, D, 0>(k, 0, wm),
                            1..=4 => b.run::<S, D, 4>(k, nvb, wm),
                            5..=8 => b.run::<S, D, 8>(k, nvb, wm),
                            _ => b.run::<S, D, 16>(k, nvb, wm),
                        }
                        k += 16;
                    }
                })
            }
        }

        /// Bytes ahead of each channel run's current access that the transpose paths
        /// prefetch (a hint; may point past the buffer, never dereferenced): the up to
        /// 16 channel runs of a block are too many streams for the hardware prefetchers
        /// (`[8,64,28,28]` CastUntess f32->f32: 107 -> 80 us; 512 or 1024 measured no
        /// better).
        const PREFETCH: usize = 256;

        /// One chunk of `n <= 16` pixels of a `tess_t` group: source channel 0 of the
        /// first pixel at `sp`, channels `cs` bytes apart, lanes `pm`; destination
        /// pixel `i` at `dg + off[i]`.
        struct TessBlock<'a> {
            sp: *const u8,
            cs: usize,
            pm: __mmask16,
            dg: *mut u8,
            off: &'a [usize; 16],
            n: usize,
            df: Fmt,
        }

        impl TessBlock<'_> {
            /// Converts channels `k..k + nvb` (`nvb <= NB`, rows from `NB` on known to
            /// be zero) and writes slots `k..` of lanes `wm` of every pixel.
            ///
            /// # Safety
            /// Those channels' `n` pixels are readable and slots writable; AVX-512
            /// F/BW/VL/DQ/BF16/VBMI available.
            #[inline(always)]
            unsafe fn run<S: Elem, D: Elem, const NB: usize>(
                &self,
                k: usize,
                nvb: usize,
                wm: __mmask16,
            ) {
                // SAFETY: loads read lanes `pm` (the chunk's pixels) of channels below
                // `nvb`; stores write lanes `wm` of slots `k..` of the chunk's pixels;
                // prefetches are hints that never fault, whatever the address.
                unsafe {
                    let mut v = [_mm512_setzero_si512(); 16];
                    let load = |c: usize| {
                        let p = self.sp.add((k + c) * self.cs);
                        _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(PREFETCH).cast());
                        let x = if S::W == 4 {
                            _mm512_maskz_loadu_epi32(self.pm, p.cast())
                        } else {
                            _mm512_zextsi256_si512(_mm256_maskz_loadu_epi16(self.pm, p.cast()))
                        };
                        convert16::<S, D>(x)
                    };
                    if NB > 0 && D::W == 4 {
                        seq16!(c => {
                            if c < NB && c < nvb {
                                v[c] = load(c);
                            }
                        });
                        if NB <= 4 {
                            transpose4x16(&mut v);
                        } else {
                            transpose16(&mut v);
                        }
                    } else if NB > 0 {
                        // 16-bit lanes: row `j` holds channels `2j` and `2j + 1` of
                        // each pixel in one 32-bit lane, so 8 rows transpose to each
                        // pixel's 16 slots in the low half of its row.
                        let pair = _mm512_loadu_si512(PAIR_IDX.as_ptr().cast());
                        seq16!(j => {
                            if j < 8 && 2 * j < NB && 2 * j < nvb {
                                let lo = load(2 * j);
                                let hi = if 2 * j + 1 < nvb {
                                    load(2 * j + 1)
                                } else {
                                    _mm512_setzero_si512()
                                };
                                v[j] = _mm512_permutex2var_epi16(lo, pair, hi);
                            }
                        });
                        if NB <= 8 {
                            transpose4x16(&mut v);
                        } else {
                            transpose16(&mut v);
                        }
                    }
                    seq16!(i => {
                        if i < self.n {
                            let q = self.dg.add(self.off[i]);
                            if D::W == 4 {
                                if wm == 0xFFFF {
                                    _mm512_storeu_si512(q.add(4 * k).cast(), v[i]);
                                } else {
                                    _mm512_mask_storeu_epi32(q.add(4 * k).cast(), wm, v[i]);
                                }
                            } else {
                                store16(q, self.df, k, wm, _mm512_castsi512_si256(v[i]));
                            }
                        }
                    });
                }
            }
        }

        /// `vpermt2w` indices interleaving the low 16 lanes of two vectors (lane `2l`
        /// from the first, `2l + 1` from the second).
        static PAIR_IDX: [u16; 32] = {
            let mut a = [0u16; 32];
            let mut l = 0;
            while l < 16 {
                a[2 * l] = l as u16;
                a[2 * l + 1] = 32 + l as u16;
                l += 1;
            }
            a
        };

        /// `vpermw` indices splitting interleaved 16-bit lanes: the even ones to the low
        /// half, the odd ones to the high half (the inverse of [`PAIR_IDX`]).
        static UNPAIR_IDX: [u16; 32] = {
            let mut a = [0u16; 32];
            let mut l = 0;
            while l < 16 {
                a[l] = 2 * l as u16;
                a[16 + l] = 2 * l as u16 + 1;
                l += 1;
            }
            a
        };

        /// CastUntess into strided channels of dense pixels (see [`transposed`]).
        ///
        /// # Safety
        /// As for `grid`; `d.fmt == Fmt::Elements(cs)`, `d.pixel == D::W`, `s.fmt`
        /// direct with `SP` its variant.
        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn untess_t<S: Elem, D: Elem, const SP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            cs: usize,
            r: Row,
            g: Grid,
        ) {
            let sf = fixed::<S>(s.fmt, SP);
            let runs = Runs::new(r, g, (g[0].2, D::W), (s.pixel, g[0].1), 16);
            // SAFETY: rows in bounds (contract). A run's pixels are consecutive
            // destination elements (`d.pixel == D::W`, and across W tiles
            // `g[0].2 == npix * D::W`) and direct pixels at `offsets`, exactly the grid's
            // pixels; each block reads elements below `nv` of pixels below `n` and
            // writes lanes below `n` of channels below `ns`, all inside their groups.
            unsafe {
                runs.for_each_chunk(src, s.group, dst, d.group, r, |sg, dg, p0, toff, nv, ns| {
                    let n = (runs.len - p0).min(runs.chunk);
                    let dc = sg.wrapping_add(toff);
                    let b = UntessBlock {
                        sg: dc,
                        off: &runs.base,
                        n,
                        sf,
                        dp: dg.add(p0 * D::W),
                        cs,
                        pm: mask(n),
                    };
                    let mut k = 0;
                    while k < ns {
                        let nvb = nv.saturating_sub(k).min(16);
                        let nsb = (ns - k).min(16);
                        match nvb {
                            0 => b.run::<S, D, 0>(k, 0, nsb),
                            1..=4 => b.run::<S, D, 4>(k, nvb, nsb),
                            5..=8 => b.run::<S, D, 8>(k, nvb, nsb),
                            _ => b.run::<S, D, 16>(k, nvb, nsb),
                        }
                        k += 16;
                    }
                })
            }
        }

        /// One chunk of `n <= 16` pixels of an `untess_t` group: source pixel `i` at
        /// `sg + off[i]`; destination channel 0 of the first pixel at `dp`, channels
        /// `cs` bytes apart, lanes `pm`.
        struct UntessBlock<'a> {
            sg: *const u8,
            off: &'a [usize; 16],
            n: usize,
            sf: Fmt,
            dp: *mut u8,
            cs: usize,
            pm: __mmask16,
        }

        impl UntessBlock<'_> {
            /// Converts channels `k..k + nvb` (`nvb <= NB`) of every pixel and writes
            /// channels `k..k + nsb` (zero from `nvb` on).
            ///
            /// # Safety
            /// Those channels of the `n` pixels are readable and writable; AVX-512
            /// F/BW/VL/DQ/BF16/VBMI available.
            #[inline(always)]
            unsafe fn run<S: Elem, D: Elem, const NB: usize>(
                &self,
                k: usize,
                nvb: usize,
                nsb: usize,
            ) {
                // SAFETY: loads read channels `k..k + nvb` of the chunk's pixels;
                // stores write lanes `pm` (the chunk's pixels) of channels below `nsb`;
                // prefetches are hints that never fault, whatever the address (every
                // AVX-512 CPU has PREFETCHW).
                unsafe {
                    // F32 to 16 bits converts each pixel as it is loaded (the same
                    // number of conversions as per channel in a full block), so the
                    // transpose moves 16-bit lanes.
                    let early = S::W == 4 && D::W == 2;
                    let pairs = S::W == 2 || early;
                    let mut v = [_mm512_setzero_si512(); 16];
                    if NB > 0 {
                        let vm = mask(nvb);
                        // 16-bit lanes: a pixel's 16 slots are 8 32-bit lanes (channel
                        // pairs), so the transpose's row `j` holds channels `2j` and
                        // `2j + 1`, split below by one `vpermw`.
                        seq16!(i => {
                            if i < self.n {
                                let p = self.sg.add(self.off[i]);
                                v[i] = if early {
                                    let x = _mm512_maskz_loadu_epi32(vm, p.add(4 * k).cast());
                                    _mm512_zextsi256_si512(_mm512_castsi512_si256(
                                        convert16::<S, D>(x),
                                    ))
                                } else if S::W == 4 {
                                    _mm512_maskz_loadu_epi32(vm, p.add(4 * k).cast())
                                } else {
                                    _mm512_zextsi256_si512(load16(p, self.sf, k, vm))
                                };
                            }
                        });
                        transpose16(&mut v);
                        if pairs {
                            let unpair = _mm512_loadu_si512(UNPAIR_IDX.as_ptr().cast());
                            seq16!(j => {
                                if j < 8 && 2 * j < NB {
                                    v[j] = _mm512_permutexvar_epi16(unpair, v[j]);
                                }
                            });
                        }
                    }
                    seq16!(c => {
                        if c < nsb {
                            // Rows from `NB` on hold channels past `nvb`: zeros.
                            let y = if c < NB {
                                let x = if !pairs {
                                    v[c]
                                } else if c.is_multiple_of(2) {
                                    v[c / 2]
                                } else {
                                    _mm512_zextsi256_si512(_mm512_extracti64x4_epi64::<1>(
                                        v[c / 2],
                                    ))
                                };
                                if early {
                                    x
                                } else {
                                    convert16::<S, D>(x)
                                }
                            } else {
                                _mm512_setzero_si512()
                            };
                            let q = self.dp.add((k + c) * self.cs);
                            _mm_prefetch::<_MM_HINT_ET0>(q.wrapping_add(PREFETCH).cast());
                            match (D::W, self.pm) {
                                (4, 0xFFFF) => _mm512_storeu_si512(q.cast(), y),
                                (4, _) => _mm512_mask_storeu_epi32(q.cast(), self.pm, y),
                                (_, 0xFFFF) => {
                                    _mm256_storeu_si256(q.cast(), _mm512_castsi512_si256(y))
                                }
                                _ => _mm256_mask_storeu_epi16(
                                    q.cast(),
                                    self.pm,
                                    _mm512_castsi512_si256(y),
                                ),
                            }
                        }
                    });
                }
            }
        }

        #[inline(always)]
        fn mask(n: usize) -> __mmask16 {
            ((1u32 << n) - 1) as __mmask16
        }

        /// 32 lanes of 16-bit elements (a 32-slot group, see [`wide32`], or a piece of a
        /// run) as one 64-byte vector: converts ([`convert32`]) or copies the elements of
        /// the lanes in `vm` and writes the slots in `sm` (zero where `vm` is clear), a
        /// byte-plane side (32-slot planes, the pixel's 64 bytes) by one shuffle of the
        /// whole pixel. Two 16-lane blocks took two shuffles and four 16-byte stores for
        /// a BF16 pixel.
        ///
        /// # Safety
        /// Formats direct, 16-bit elements, byte planes of 32 slots; the elements in `vm`
        /// readable and the slots in `sm` writable.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn block32<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            dp: *mut u8,
            df: Fmt,
            vm: __mmask32,
            sm: __mmask32,
        ) {
            let planes = |m: __mmask32| (m as u64) | ((m as u64) << 32);
            // SAFETY: only the lanes (or both planes' bytes) in the masks are accessed.
            unsafe {
                let x = match sf {
                    Fmt::Planes(_) => {
                        from_planes(_mm512_maskz_loadu_epi8(planes(vm), sp.cast()), 32)
                    }
                    Fmt::Elements(_) => _mm512_maskz_loadu_epi16(vm, sp.cast()),
                };
                let x = if S::DTYPE == D::DTYPE {
                    x
                } else {
                    convert32::<S, D>(x)
                };
                match df {
                    Fmt::Planes(_) => {
                        _mm512_mask_storeu_epi8(dp.cast(), planes(sm), to_planes(x, 32))
                    }
                    Fmt::Elements(_) => _mm512_mask_storeu_epi16(dp.cast(), sm, x),
                }
            }
        }

        /// Whether 32-slot groups go by [`block32`]: BF16 copies into or out of byte-plane
        /// tiles of 32 slots (0.57 to 0.95x the time of two 16-lane blocks), and BF16 ->
        /// F16 conversions (whole groups 0.88x to 0.95x on Zen 4, `bf16[1,56,56,64]` and
        /// `[1,7,7,2048]` into and out of 1x8x8x32 tiles). F16 copies measured 0.8 to 1.3x,
        /// F16 -> BF16 1.13x to 1.18x slower, so they keep the blocks.
        #[inline(always)]
        fn wide32<S: Elem, D: Elem>(sf: Fmt, df: Fmt) -> bool {
            let planes32 = |f: Fmt| !matches!(f, Fmt::Planes(pl) if pl != 32);
            // BF16 copies and BF16 -> F16.
            S::DTYPE == DType::BF16 && D::W == 2 && planes32(sf) && planes32(df)
        }

        /// The lowest `n` of 32 lanes.
        #[inline(always)]
        fn mask32(n: usize) -> __mmask32 {
            if n >= 32 {
                u32::MAX
            } else {
                (1u32 << n) - 1
            }
        }

        /// Converts the elements `k..` of the lanes in `vm` and writes the slots `k..` of
        /// the lanes in `sm` (zero where `vm` is clear); formats are [`direct`].
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn block<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            dp: *mut u8,
            df: Fmt,
            k: usize,
            vm: __mmask16,
            sm: __mmask16,
        ) {
            // SAFETY: only unmasked lanes touch memory, all in bounds (caller).
            unsafe {
                match (S::W, D::W) {
                    (4, 4) => _mm512_mask_storeu_epi32(
                        dp.add(4 * k).cast(),
                        sm,
                        _mm512_maskz_loadu_epi32(vm, sp.add(4 * k).cast()),
                    ),
                    (4, _) => {
                        let x = _mm512_maskz_loadu_epi32(vm, sp.add(4 * k).cast());
                        store16(dp, df, k, sm, narrow(S::DTYPE, D::DTYPE, x))
                    }
                    (_, 4) => {
                        let x = load_wide::<S, D>(sp, sf, k, vm);
                        _mm512_mask_storeu_epi32(dp.add(4 * k).cast(), sm, x)
                    }
                    _ if S::DTYPE == D::DTYPE => store16(dp, df, k, sm, load16(sp, sf, k, vm)),
                    _ => store16(
                        dp,
                        df,
                        k,
                        sm,
                        narrow(S::DTYPE, D::DTYPE, load_wide::<S, D>(sp, sf, k, vm)),
                    ),
                }
            }
        }

        /// Converts the 8 elements at `sp` into the 8 slots at `dp` with unmasked 256-
        /// and 128-bit loads and stores (formats direct).
        ///
        /// # Safety
        /// The 8 elements are readable and the 8 slots writable.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn block8<S: Elem, D: Elem>(sp: *const u8, sf: Fmt, dp: *mut u8, df: Fmt) {
            // SAFETY: each access covers exactly the 8 elements or the 8 slots (caller).
            unsafe {
                match (S::W, D::W) {
                    (4, 4) => _mm256_storeu_si256(dp.cast(), _mm256_loadu_si256(sp.cast())),
                    (4, _) => {
                        let x = _mm512_zextsi256_si512(_mm256_loadu_si256(sp.cast()));
                        store8(
                            dp,
                            df,
                            _mm256_castsi256_si128(narrow(S::DTYPE, D::DTYPE, x)),
                        )
                    }
                    (_, 4) => {
                        let x = widen(S::DTYPE, _mm256_zextsi128_si256(load8(sp, sf)));
                        _mm256_storeu_si256(dp.cast(), _mm512_castsi512_si256(x))
                    }
                    _ if S::DTYPE == D::DTYPE => store8(dp, df, load8(sp, sf)),
                    _ => {
                        let x = widen_to(S::DTYPE, D::DTYPE, _mm256_zextsi128_si256(load8(sp, sf)));
                        store8(
                            dp,
                            df,
                            _mm256_castsi256_si128(narrow(S::DTYPE, D::DTYPE, x)),
                        )
                    }
                }
            }
        }

        /// 8 lanes of 16-bit elements, contiguous or byte planes.
        ///
        /// # Safety
        /// The 8 elements are readable.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn load8(p: *const u8, f: Fmt) -> __m128i {
            // SAFETY: reads the 8 low and 8 high bytes, or 8 elements (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => _mm_unpacklo_epi8(
                        _mm_loadl_epi64(p.cast()),
                        _mm_loadl_epi64(p.add(pl).cast()),
                    ),
                    Fmt::Elements(_) => _mm_loadu_si128(p.cast()),
                }
            }
        }

        /// Stores 8 lanes of 16-bit elements, contiguous or byte planes.
        ///
        /// # Safety
        /// The 8 slots are writable.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn store8(p: *mut u8, f: Fmt, v: __m128i) {
            // SAFETY: writes the 8 low and 8 high bytes, or 8 elements (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        // [l0 h0 .. l7 h7] -> [l0..l7 h0..h7].
                        let split =
                            _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
                        let v = _mm_shuffle_epi8(v, split);
                        if pl == 8 {
                            _mm_storeu_si128(p.cast(), v);
                        } else {
                            _mm_storel_epi64(p.cast(), v);
                            _mm_storel_epi64(p.add(pl).cast(), _mm_unpackhi_epi64(v, v));
                        }
                    }
                    Fmt::Elements(_) => _mm_storeu_si128(p.cast(), v),
                }
            }
        }

        /// 16 lanes of 16-bit elements, contiguous or byte planes (zero outside `m`). A
        /// 16-slot byte-plane pixel (`k == 0`) is read whole, one load and one `vpermb`,
        /// even when `m` leaves lanes out (a partial last group): two masked half-plane
        /// loads, an unpack and an insert took 1.04x to 1.14x the time of the CastUntess
        /// of `bf16[1,57,55,40]`, `[1,28,28,24]`, `[2,13,17,20]` out of 16-slot tiles.
        ///
        /// # Safety
        /// The elements in `m` are readable, and a 16-slot byte-plane pixel's 32 bytes
        /// (as every source group of a grid is: see `grid_extent`).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn load16(p: *const u8, f: Fmt, k: usize, m: __mmask16) -> __m256i {
            // SAFETY: unmasked lanes are readable elements, a 16-slot pixel's 32 bytes
            // too (caller).
            unsafe {
                match f {
                    // A whole 16-slot pixel: one load, one `vpermb` interleaving its planes.
                    Fmt::Planes(16) if k == 0 => {
                        let x = _mm256_permutexvar_epi8(
                            _mm512_castsi512_si256(plane_perm(16, false)),
                            _mm256_loadu_si256(p.cast()),
                        );
                        if m == 0xFFFF {
                            x
                        } else {
                            _mm256_maskz_mov_epi16(m, x)
                        }
                    }
                    Fmt::Planes(pl) => {
                        let lo = _mm_maskz_loadu_epi8(m, p.add(k).cast());
                        let hi = _mm_maskz_loadu_epi8(m, p.add(pl + k).cast());
                        _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi))
                    }
                    Fmt::Elements(_) => _mm256_maskz_loadu_epi16(m, p.add(2 * k).cast()),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn store16(p: *mut u8, f: Fmt, k: usize, m: __mmask16, v: __m256i) {
            // SAFETY: unmasked lanes are writable slots (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        // Bytes [l0 h0 l1 h1 ...] -> [l0..l15 | h0..h15].
                        let v = _mm256_permutexvar_epi8(
                            _mm512_castsi512_si256(plane_perm(16, true)),
                            v,
                        );
                        if pl == 16 && m == 0xFFFF {
                            // A whole 16-slot pixel: both planes are adjacent.
                            _mm256_storeu_si256(p.cast(), v);
                            return;
                        }
                        _mm_mask_storeu_epi8(p.add(k).cast(), m, _mm256_castsi256_si128(v));
                        _mm_mask_storeu_epi8(
                            p.add(pl + k).cast(),
                            m,
                            _mm256_extracti128_si256::<1>(v),
                        );
                    }
                    Fmt::Elements(_) => _mm256_mask_storeu_epi16(p.add(2 * k).cast(), m, v),
                }
            }
        }

        /// F16 or BF16 lanes to F32 bits, exactly (`half`'s rule: a NaN gets its quiet bit).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn widen(from: DType, v: __m256i) -> __m512i {
            if from == DType::F16 {
                _mm512_castps_si512(_mm512_cvtph_ps(v))
            } else {
                quiet_nans(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(v)))
            }
        }

        /// [`widen`] of lanes that [`narrow`] takes on to `to`, but BF16 into F16 without
        /// [`quiet_nans`]: `vcvtps2ph` quiets every NaN it narrows (the F32 quiet bit is
        /// the F16 one, the payload's top bits follow it), so the bits are `half`'s either
        /// way, and the three instructions held up about half of a BF16 -> F16 block's
        /// time on Zen 4 (`bf16[1,33,33,24]` into F16 1x8x8x32 tiles 6.2 -> 3.3 us, the
        /// contiguous Cast 0.7x).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn widen_to(from: DType, to: DType, v: __m256i) -> __m512i {
            if from == DType::BF16 && to == DType::F16 {
                _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(v))
            } else {
                widen(from, v)
            }
        }

        /// F32 bits with the quiet bit set in every NaN lane (`half`'s BF16 -> F32 rule).
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn quiet_nans(x: __m512i) -> __m512i {
            let abs = _mm512_and_si512(x, _mm512_set1_epi32(0x7FFF_FFFF));
            let nan = _mm512_cmpgt_epu32_mask(abs, _mm512_set1_epi32(0x7F80_0000));
            _mm512_mask_or_epi32(x, nan, x, _mm512_set1_epi32(0x0040_0000))
        }

        /// `vpermb` indices putting the low and high byte planes of a 16-slot BF16 pixel
        /// (bytes `i` and `16 + i`) into the top half of 32-bit lane `i` (bytes 2 and 3;
        /// bytes 0 and 1 are zeroed by the mask [`WIDE_BYTES`]).
        const WIDE_INDEX: [u8; 64] = {
            let mut idx = [0u8; 64];
            let mut i = 0;
            while i < 16 {
                idx[4 * i + 2] = i as u8;
                idx[4 * i + 3] = 16 + i as u8;
                i += 1;
            }
            idx
        };

        /// The bytes of [`WIDE_INDEX`] that take a plane's byte.
        const WIDE_BYTES: u64 = 0xCCCC_CCCC_CCCC_CCCC;

        /// The 16 elements `k..` of the lanes in `m` as F32 bits (zero elsewhere). A whole
        /// 16-slot BF16 byte-plane pixel is one load and one `vpermb` that puts each byte
        /// where its F32 lane wants it (the interleave, zero-extension and shift took four
        /// shuffles: `bf16[1,56,56,64]` and `[1,7,7,2048]` out of 1x4x4x16 tiles into F32
        /// measured 1.5x faster); everything else is [`widen_to`] of [`load16`]. Bits for
        /// [`narrow`] to `D` (without the quiet bit for F16, as [`widen_to`]).
        ///
        /// # Safety
        /// As for [`load16`].
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        unsafe fn load_wide<S: Elem, D: Elem>(
            p: *const u8,
            f: Fmt,
            k: usize,
            m: __mmask16,
        ) -> __m512i {
            // SAFETY: a whole 16-slot pixel's 32 bytes are its elements (caller);
            // otherwise `load16` reads the lanes in `m`.
            unsafe {
                if S::DTYPE == DType::BF16 && f == Fmt::Planes(16) && k == 0 {
                    let v = _mm512_castsi256_si512(_mm256_loadu_si256(p.cast()));
                    let idx = _mm512_loadu_si512(WIDE_INDEX.as_ptr().cast());
                    let x = _mm512_maskz_permutexvar_epi8(WIDE_BYTES, idx, v);
                    let x = if D::DTYPE == DType::F16 {
                        x
                    } else {
                        quiet_nans(x)
                    };
                    return if m == 0xFFFF {
                        x
                    } else {
                        _mm512_maskz_mov_epi32(m, x)
                    };
                }
                widen_to(S::DTYPE, D::DTYPE, load16(p, f, k, m))
            }
        }

        /// F32 bits to F16 or BF16 lanes, round to nearest even, subnormals kept. `from`
        /// is the type the values were read as: F16 values widened are never F32
        /// subnormals, so F16 into BF16 skips the subnormal test.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx512vbmi")]
        fn narrow(from: DType, to: DType, x: __m512i) -> __m256i {
            if to == DType::F16 {
                return _mm512_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm512_castsi512_ps(x));
            }
            let hw = _mm512_cvtneps_pbh(_mm512_castsi512_ps(x));
            // SAFETY: reinterprets 16 bf16 lanes as an integer vector of the same 32 bytes;
            // every bit pattern is valid for both.
            let mut r: __m256i = unsafe { std::mem::transmute::<__m256bh, __m256i>(hw) };
            if from == DType::F16 {
                return r;
            }
            // vcvtneps2bf16 treats denormal inputs as zero: recompute lanes holding a
            // nonzero subnormal (`vfpclassps` class 0x20, one instruction where the
            // integer test |x| - 1 < 0x007FFFFF took three) with integer RNE.
            let one = _mm512_set1_epi32(1);
            let sub = _mm512_fpclass_ps_mask::<0x20>(_mm512_castsi512_ps(x));
            if sub != 0 {
                let lsb = _mm512_and_si512(_mm512_srli_epi32::<16>(x), one);
                let t = _mm512_add_epi32(x, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF), lsb));
                let fix = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(t));
                r = _mm256_mask_blend_epi16(sub, r, fix);
            }
            r
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            /// The byte-plane permutations are the pixel layout of the tiled placements
            /// (a BF16 pixel of `slots` channels: its low bytes, then its high bytes), and
            /// each is the other's inverse.
            #[test]
            fn plane_indices_split_and_join_bf16_pixels() {
                let permute = |idx: &[u8; 64], v: &[u8; 64]| idx.map(|i| v[i as usize]);
                // 32 distinct 16-bit lanes, little-endian.
                let lane = |i: usize| 0x1234u16.wrapping_mul(i as u16 + 1) ^ (i as u16);
                let mut lanes = [0u8; 64];
                for i in 0..32 {
                    lanes[2 * i..2 * i + 2].copy_from_slice(&lane(i).to_le_bytes());
                }
                for slots in [8, 16, 32] {
                    let mut planes = [0u8; 64];
                    for i in 0..32 {
                        let (pixel, k) = (i / slots, i % slots);
                        let [lo, hi] = lane(i).to_le_bytes();
                        planes[pixel * 2 * slots + k] = lo;
                        planes[pixel * 2 * slots + slots + k] = hi;
                    }
                    assert_eq!(
                        permute(&plane_index(slots, true), &lanes),
                        planes,
                        "{slots}"
                    );
                    assert_eq!(
                        permute(&plane_index(slots, false), &planes),
                        lanes,
                        "{slots}"
                    );
                }
                // A 16-slot pixel's planes to F32 bits: lane i's BF16 bits in the top half.
                let planes16 = permute(&plane_index(16, true), &lanes);
                let wide = permute(&WIDE_INDEX, &planes16);
                for i in 0..16 {
                    let keep = |b: usize| (WIDE_BYTES >> (4 * i + b)) & 1 == 1;
                    let f32_bits = u32::from_le_bytes(std::array::from_fn(|b| {
                        if keep(b) {
                            wide[4 * i + b]
                        } else {
                            0
                        }
                    }));
                    assert_eq!(f32_bits, u32::from(lane(i)) << 16, "lane {i}");
                }
            }
        }
    }

    pub(super) mod avx2 {
        use super::*;
        use std::arch::x86_64::*;

        /// # Safety
        /// AVX2 and F16C available; memory as for the AVX-512 `grid`.
        #[target_feature(enable = "avx2,f16c")]
        pub unsafe fn grid<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            src_end: *const u8,
        ) {
            if let Some(tess) = units_fit::<S, D>(s, d, r, &g) {
                // SAFETY: same contract; `units_fit` checked the layout, and the macro
                // passes the row's slots, direction and tiled format as the constants.
                return unsafe { by_units!(units, r, tess, s, d, (src, s, dst, d, r, g)) };
            }
            if direct::<S>(s.fmt) && direct::<D>(d.fmt) {
                // SAFETY: same contract for the parts and the one-group grids.
                let done = unsafe {
                    run_over_grid::<S, D>(
                        src,
                        s,
                        dst,
                        d,
                        r,
                        g,
                        |sp, dp, part| grid::<S, D>(sp, s, dp, d, r, part, src_end),
                        |sp, dp, row, gg| {
                            // One group a row: the group loop where it fits (the group
                            // walk took 2.5x its time, `bf16[4,15,17,384]` into 1x4x4x16
                            // tiles).
                            if groups16_fit::<S, D>(s, d, row) {
                                by_fmts!(grid_groups16, s, d, (sp, s, dp, d, row, gg, src_end))
                            } else {
                                by_fmts!(grid_direct, s, d, (sp, s, dp, d, row, gg))
                            }
                        },
                    )
                };
                if done {
                    return;
                }
                if groups16_fit::<S, D>(s, d, r) {
                    // SAFETY: same contract; `groups16_fit` checked the pixel layout.
                    return unsafe {
                        by_fmts!(grid_groups16, s, d, (src, s, dst, d, r, g, src_end))
                    };
                }
                if r.groups() == 1 && r.valid < 8 && r.group(0).1 <= 32 {
                    // SAFETY: same contract, direct formats, one group of < 8 elements.
                    return unsafe { by_fmts!(grid_few, s, d, (src, s, dst, d, r, g)) };
                }
                // SAFETY: same contract, direct formats.
                unsafe { by_fmts!(grid_direct, s, d, (src, s, dst, d, r, g)) }
            } else {
                // SAFETY: same contract; `transposed` checks its own conditions.
                unsafe {
                    if !transposed::<S, D>(src, s, dst, d, r, g) {
                        grid_strided::<S, D>(src, s, dst, d, r, g);
                    }
                }
            }
        }

        /// The AVX2 form of the AVX-512 `units` (see there): chunks of `8 / TC` pixels,
        /// blocks of 8 channels, a transpose of 2- or 4-lane units by 64-bit unpacks and
        /// 128-bit permutes. Partial 16-bit chunks go through `load8`/`store8`'s stack
        /// buffers, as in the other AVX2 paths (no 16-bit masked loads or stores).
        ///
        /// # Safety
        /// As for `grid`, and `units_fit` returned `Some(TESS)`; `TC == r.slots`; `PL`:
        /// the tiled side is BF16 byte planes.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn units<S: Elem, D: Elem, const TC: usize, const TESS: bool, const PL: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let p_max = 8 / TC;
            let (t, f) = if TESS { (d, s) } else { (s, d) };
            let (nv, nb) = (r.valid, r.valid.div_ceil(8));
            let planes = _mm_loadu_si128(const { small_planes_idx(TC, !TESS) }.as_ptr().cast());
            // SAFETY: rows in bounds (contract). A run's `len` pixels follow each other
            // on the tiled side from the row's first (a joined level continuing them)
            // and lie at `off` on the flat side; loads read the valid channels of the
            // chunk's pixels (flat) or the valid slots of its groups (tiled); stores
            // write a group's slots of the chunk's pixels (padding zero from the zeroed
            // lanes) or the valid channels of each pixel.
            unsafe {
                let walk = (r, g, t, f, p_max, nb, false);
                for_each_unit_chunk(src, dst, walk, TESS, |tc_at, fb, off, n, b| {
                    let (c0, g0) = (8 * b, b * p_max);
                    let vb = (nv - c0).min(8);
                    let gb = vb.div_ceil(TC);
                    let mut v = [_mm256_setzero_si256(); 4];
                    if TESS {
                        for (x, &o) in v.iter_mut().zip(off).take(n) {
                            let p = fb.wrapping_add(o);
                            *x = load8::<S>(p, Fmt::Elements(S::W), c0, vb);
                        }
                        transpose_units8::<TC>(&mut v);
                        for (k, &x) in v.iter().enumerate().take(gb) {
                            let q = tc_at.wrapping_add((g0 + k) * d.group);
                            let y = convert8::<S, D>(x);
                            store_units::<D, PL>(q, y, n * TC, planes);
                        }
                    } else {
                        for (k, x) in v.iter_mut().enumerate().take(gb) {
                            let nvg = (vb - k * TC).min(TC);
                            let p = tc_at.wrapping_add((g0 + k) * s.group);
                            *x = load_units::<S, TC, PL>(p, n, nvg, planes);
                        }
                        transpose_units8::<TC>(&mut v);
                        for (&x, &o) in v.iter().zip(off).take(n) {
                            let q = fb.wrapping_add(o);
                            let y = convert8::<S, D>(x);
                            store8::<D>(q, Fmt::Elements(D::W), c0, vb, y);
                        }
                    }
                })
            }
        }

        /// Transposes the `(8 / TC) x (8 / TC)` matrix of `TC`-lane units (`TC` = 2 or
        /// 4 32-bit lanes) in rows `0..8 / TC` of `v`.
        #[inline(always)]
        fn transpose_units8<const TC: usize>(v: &mut [__m256i; 4]) {
            const { assert!(TC == 2 || TC == 4) };
            // SAFETY: register-only shuffles; AVX2 enabled by callers.
            unsafe {
                if TC == 4 {
                    let (a, b) = (v[0], v[1]);
                    v[0] = _mm256_permute2x128_si256::<0x20>(a, b);
                    v[1] = _mm256_permute2x128_si256::<0x31>(a, b);
                    return;
                }
                let t0 = _mm256_unpacklo_epi64(v[0], v[1]);
                let t1 = _mm256_unpackhi_epi64(v[0], v[1]);
                let t2 = _mm256_unpacklo_epi64(v[2], v[3]);
                let t3 = _mm256_unpackhi_epi64(v[2], v[3]);
                v[0] = _mm256_permute2x128_si256::<0x20>(t0, t2);
                v[1] = _mm256_permute2x128_si256::<0x20>(t1, t3);
                v[2] = _mm256_permute2x128_si256::<0x31>(t0, t2);
                v[3] = _mm256_permute2x128_si256::<0x31>(t1, t3);
            }
        }

        /// Writes the low `cnt` (`<= 8`) 32-bit lanes of `y` (`D` bits each) as `cnt`
        /// consecutive slots of pixels of a tiled group at `q`: little-endian elements,
        /// or (`PL`) BF16 byte planes per pixel by the shuffle `planes`.
        ///
        /// # Safety
        /// Those slots are writable; AVX2 available.
        #[inline(always)]
        unsafe fn store_units<D: Elem, const PL: bool>(
            q: *mut u8,
            y: __m256i,
            cnt: usize,
            planes: __m128i,
        ) {
            // SAFETY: writes exactly the `cnt` slots (`2 * cnt` bytes of planes).
            unsafe {
                if !PL {
                    return store8::<D>(q, Fmt::Elements(D::W), 0, cnt, y);
                }
                let x = _mm_shuffle_epi8(pack16(y), planes);
                if cnt == 8 {
                    _mm_storeu_si128(q.cast(), x);
                } else {
                    let mut a = [0u8; 16];
                    _mm_storeu_si128(a.as_mut_ptr().cast(), x);
                    std::ptr::copy_nonoverlapping(a.as_ptr(), q, 2 * cnt);
                }
            }
        }

        /// The `n` pixels of a tiled group at `p` (`TC` slots each, the first `nvg`
        /// valid) as 32-bit lanes, pixel `j`'s slot `k` in lane `j * TC + k`, the
        /// others zero; `PL`: BF16 byte planes per pixel, joined by the shuffle `planes`.
        ///
        /// # Safety
        /// Those pixels' valid slots are readable; AVX2 available.
        #[inline(always)]
        unsafe fn load_units<S: Elem, const TC: usize, const PL: bool>(
            p: *const u8,
            n: usize,
            nvg: usize,
            planes: __m128i,
        ) -> __m256i {
            // SAFETY: whole chunks read exactly `n * TC` slots; the others only the
            // valid slots, element by element.
            unsafe {
                if n * TC == 8 && nvg == TC {
                    return match (S::W, PL) {
                        (4, _) => _mm256_loadu_si256(p.cast()),
                        (_, false) => _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast())),
                        _ => _mm256_cvtepu16_epi32(_mm_shuffle_epi8(
                            _mm_loadu_si128(p.cast()),
                            planes,
                        )),
                    };
                }
                let (fmt, pixel) = if PL {
                    (Fmt::Planes(TC), 2 * TC)
                } else {
                    (Fmt::Elements(S::W), TC * S::W)
                };
                let mut a = [0u32; 8];
                for jj in 0..n {
                    for k in 0..nvg {
                        a[jj * TC + k] = read::<S>(p.add(jj * pixel), fmt, k);
                    }
                }
                _mm256_loadu_si256(a.as_ptr().cast())
            }
        }

        /// The AVX2 form of the AVX-512 `transposed` (see there): chunks of up to 8
        /// pixels, blocks of up to 8 channels, an 8x8 transpose of 32-bit lanes by
        /// unpacks and 128-bit permutes. AVX2 has no 16-bit masked loads or stores, so
        /// a partial chunk or block of 16-bit elements (or any of byte planes) goes
        /// through a stack buffer element by element; 32-bit ones use `vpmaskmovd`.
        /// Returns `false`, touching nothing, when the grid is not this case.
        ///
        /// # Safety
        /// As for `grid`.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn transposed<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) -> bool {
            // SAFETY: same contract; the callees' conditions (the side's format and
            // dense pixels, the other side direct) hold here.
            unsafe {
                match (s.fmt, d.fmt) {
                    (Fmt::Elements(cs), df) if s.pixel == S::W && cs != S::W && direct::<D>(df) => {
                        tess_t::<S, D>(src, s, cs, dst, d, r, g)
                    }
                    (sf, Fmt::Elements(cs)) if d.pixel == D::W && cs != D::W && direct::<S>(sf) => {
                        untess_t::<S, D>(src, s, dst, d, cs, r, g)
                    }
                    _ => return false,
                }
            }
            true
        }

        /// Transposes the 8x8 matrix of 32-bit lanes `v` in place.
        #[inline(always)]
        fn transpose8(v: &mut [__m256i; 8]) {
            // SAFETY: register-only shuffles; AVX2 enabled by callers.
            unsafe {
                let t0 = _mm256_unpacklo_epi32(v[0], v[1]);
                let t1 = _mm256_unpackhi_epi32(v[0], v[1]);
                let t2 = _mm256_unpacklo_epi32(v[2], v[3]);
                let t3 = _mm256_unpackhi_epi32(v[2], v[3]);
                let t4 = _mm256_unpacklo_epi32(v[4], v[5]);
                let t5 = _mm256_unpackhi_epi32(v[4], v[5]);
                let t6 = _mm256_unpacklo_epi32(v[6], v[7]);
                let t7 = _mm256_unpackhi_epi32(v[6], v[7]);
                // u_c: columns c (low 128 bits) and c + 4 (high) of rows 0..4 / 4..8.
                let u0 = _mm256_unpacklo_epi64(t0, t2);
                let u1 = _mm256_unpackhi_epi64(t0, t2);
                let u2 = _mm256_unpacklo_epi64(t1, t3);
                let u3 = _mm256_unpackhi_epi64(t1, t3);
                let u4 = _mm256_unpacklo_epi64(t4, t6);
                let u5 = _mm256_unpackhi_epi64(t4, t6);
                let u6 = _mm256_unpacklo_epi64(t5, t7);
                let u7 = _mm256_unpackhi_epi64(t5, t7);
                v[0] = _mm256_permute2x128_si256::<0x20>(u0, u4);
                v[1] = _mm256_permute2x128_si256::<0x20>(u1, u5);
                v[2] = _mm256_permute2x128_si256::<0x20>(u2, u6);
                v[3] = _mm256_permute2x128_si256::<0x20>(u3, u7);
                v[4] = _mm256_permute2x128_si256::<0x31>(u0, u4);
                v[5] = _mm256_permute2x128_si256::<0x31>(u1, u5);
                v[6] = _mm256_permute2x128_si256::<0x31>(u2, u6);
                v[7] = _mm256_permute2x128_si256::<0x31>(u3, u7);
            }
        }

        /// 8 32-bit lanes holding 16-bit values, packed to 8 16-bit lanes.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn pack16(v: __m256i) -> __m128i {
            _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
        }

        /// Elements `k..k + n` (`n <= 8`) of the group at `p` as 32-bit lanes (16-bit
        /// elements zero-extended), lanes from `n` on zero.
        ///
        /// # Safety
        /// Those elements are readable; AVX2 available.
        #[inline(always)]
        unsafe fn load8<E: Elem>(p: *const u8, f: Fmt, k: usize, n: usize) -> __m256i {
            // SAFETY: full blocks read exactly 8 elements; `vpmaskmovd` reads only the
            // lanes of its mask; the buffer path reads elements below `n`.
            unsafe {
                match (E::W, n) {
                    (4, 8) => _mm256_loadu_si256(p.add(4 * k).cast()),
                    (4, _) => load_low_bytes(p.add(4 * k), 4 * n),
                    (_, 8) => _mm256_cvtepu16_epi32(load16(p, f, k)),
                    _ => {
                        let mut a = [0u32; 8];
                        for (l, x) in a.iter_mut().enumerate().take(n) {
                            *x = read::<E>(p, f, k + l);
                        }
                        _mm256_loadu_si256(a.as_ptr().cast())
                    }
                }
            }
        }

        /// Writes the low `n` (`<= 8`) of the 32-bit lanes `v` (16-bit values for
        /// 2-byte `E`) as elements `k..k + n` of the group at `p`.
        ///
        /// # Safety
        /// Those elements are writable; AVX2 available.
        #[inline(always)]
        unsafe fn store8<E: Elem>(p: *mut u8, f: Fmt, k: usize, n: usize, v: __m256i) {
            // SAFETY: full blocks write exactly 8 elements; `vpmaskmovd` writes only the
            // lanes of its mask; the buffer path writes elements below `n`.
            unsafe {
                match (E::W, n) {
                    (4, 8) => _mm256_storeu_si256(p.add(4 * k).cast(), v),
                    (4, _) => store_low_bytes(p.add(4 * k), v, 4 * n),
                    (_, 8) => store16(p, f, k, pack16(v)),
                    _ => {
                        let mut a = [0u32; 8];
                        _mm256_storeu_si256(a.as_mut_ptr().cast(), v);
                        for (l, &x) in a.iter().enumerate().take(n) {
                            write::<E>(p, f, k + l, x);
                        }
                    }
                }
            }
        }

        /// 8 lanes of `S` bits (32-bit lanes) converted to `D` bits (32-bit lanes).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn convert8<S: Elem, D: Elem>(x: __m256i) -> __m256i {
            match (S::W, D::W) {
                (4, 4) => x,
                (4, _) => _mm256_cvtepu16_epi32(narrow(D::DTYPE, x)),
                (_, 4) => widen(S::DTYPE, pack16(x)),
                _ if S::DTYPE == D::DTYPE => x,
                _ => {
                    _mm256_cvtepu16_epi32(narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, pack16(x))))
                }
            }
        }

        /// CastTess from strided channels of dense pixels (see [`transposed`]).
        ///
        /// # Safety
        /// As for `grid`; `s.fmt == Fmt::Elements(cs)`, `s.pixel == S::W`, `d.fmt`
        /// direct.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn tess_t<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            cs: usize,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let runs = Runs::new(r, g, (g[0].1, S::W), (d.pixel, g[0].2), 8);
            let sf = Fmt::Elements(S::W);
            // SAFETY: rows in bounds (contract). A run's pixels are consecutive source
            // elements (`s.pixel == S::W`, and across W tiles `g[0].1 == npix * S::W`)
            // and direct pixels at `base` from their chunk's first, exactly the grid's
            // pixels; each block reads pixels below `n` of channels below `nv` (a
            // channel's pixels are consecutive elements, so `load8` reads them as one
            // run) and writes slots below `ns` of pixels below `n`.
            unsafe {
                runs.for_each_chunk(src, s.group, dst, d.group, r, |sg, dg, p0, toff, nv, ns| {
                    let n = (runs.len - p0).min(runs.chunk);
                    let dc = dg.wrapping_add(toff);
                    let sp = sg.add(p0 * S::W);
                    let mut k = 0;
                    while k < ns {
                        let nvb = nv.saturating_sub(k).min(8);
                        let nsb = (ns - k).min(8);
                        let mut v = [_mm256_setzero_si256(); 8];
                        for (c, vc) in v.iter_mut().enumerate() {
                            if c < nvb {
                                let x = load8::<S>(sp.add((k + c) * cs), sf, 0, n);
                                *vc = convert8::<S, D>(x);
                            }
                        }
                        if nvb > 0 {
                            transpose8(&mut v);
                        }
                        for (i, &vi) in v.iter().enumerate().take(n) {
                            store8::<D>(dc.add(runs.base[i]), d.fmt, k, nsb, vi);
                        }
                        k += 8;
                    }
                })
            }
        }

        /// CastUntess into strided channels of dense pixels (see [`transposed`]).
        ///
        /// # Safety
        /// As for `grid`; `d.fmt == Fmt::Elements(cs)`, `d.pixel == D::W`, `s.fmt`
        /// direct.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn untess_t<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            cs: usize,
            r: Row,
            g: Grid,
        ) {
            let runs = Runs::new(r, g, (g[0].2, D::W), (s.pixel, g[0].1), 8);
            let df = Fmt::Elements(D::W);
            // SAFETY: rows in bounds (contract). A run's pixels are consecutive
            // destination elements (`d.pixel == D::W`, and across W tiles
            // `g[0].2 == npix * D::W`) and direct pixels at `base` from their chunk's
            // first, exactly the grid's pixels; each block reads elements below `nv`
            // of pixels below `n` and writes pixels below `n` (one run per channel) of
            // channels below `ns`.
            unsafe {
                runs.for_each_chunk(src, s.group, dst, d.group, r, |sg, dg, p0, toff, nv, ns| {
                    let n = (runs.len - p0).min(runs.chunk);
                    let sc = sg.wrapping_add(toff);
                    let dp = dg.add(p0 * D::W);
                    let mut k = 0;
                    while k < ns {
                        let nvb = nv.saturating_sub(k).min(8);
                        let nsb = (ns - k).min(8);
                        let mut v = [_mm256_setzero_si256(); 8];
                        if nvb > 0 {
                            for (i, vi) in v.iter_mut().enumerate().take(n) {
                                *vi = load8::<S>(sc.add(runs.base[i]), s.fmt, k, nvb);
                            }
                            transpose8(&mut v);
                        }
                        // Rows from `nvb` on are zeros, which convert to zeros.
                        for (c, &vc) in v.iter().enumerate().take(nsb) {
                            let y = convert8::<S, D>(vc);
                            store8::<D>(dp.add((k + c) * cs), df, 0, n, y);
                        }
                        k += 8;
                    }
                })
            }
        }

        /// Direct formats, their variants (`SP`/`DP`: byte planes) fixed at compile time
        /// so a full 8-lane block is straight-line code: full blocks convert straight
        /// between the buffers, the partial block at a group's end is loaded and stored
        /// piecewise in registers (`tail`), and slots past the converted elements are
        /// stored as zeros without a conversion.
        ///
        /// # Safety
        /// As for `grid`, with direct formats matching `SP`/`DP`.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn grid_direct<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP));
            // SAFETY: groups in bounds (contract); full blocks touch exactly 8 elements
            // and slots inside the group; the tail reads elements below nv and writes
            // slots below ns.
            unsafe {
                for_each_group::<S, D>(src, s, dst, d, r, g, |sp, dp, nv, ns| {
                    let full = nv & !7;
                    let mut k = 0;
                    while k < full {
                        block::<S, D>(sp, sf, k, dp, df, k);
                        k += 8;
                    }
                    if k < nv {
                        tail::<S, D>(sp, sf, dp, df, k, nv - k, (ns - k).min(8));
                        k += 8;
                    }
                    while k + 8 <= ns {
                        store16_or_32::<D>(dp, df, k);
                        k += 8;
                    }
                    while k < ns {
                        write::<D>(dp, df, k, 0);
                        k += 1;
                    }
                })
            };
        }

        /// Whether [`grid_groups16`] takes row `r`: groups of 8, 16 or 32 slots (the last
        /// one holding at least one channel), each side elements or (16-bit, a tile's
        /// side) byte planes of the group's slots, the last group's written slots all of
        /// them or exactly its channels (elements).
        pub(super) fn groups16_fit<S: Elem, D: Elem>(s: Side, d: Side, r: Row) -> bool {
            let (nv, ns) = r.group(r.groups() - 1);
            let side = |x: Side, w: usize| match x.fmt {
                Fmt::Planes(pl) => w == 2 && pl == r.slots,
                Fmt::Elements(st) => st == w,
            };
            matches!(r.slots, 8 | 16 | 32)
                && nv >= 1
                && side(s, S::W)
                && side(d, D::W)
                && (ns == r.slots || (ns == nv && d.fmt == Fmt::Elements(D::W)))
        }

        /// The accesses of one 16-slot group whose last group holds `nv` channels: a
        /// 16-bit group as one 256-bit vector (a partial one read by one whole load and a
        /// mask where the source goes on for 32 bytes, else by exact-size loads from 8
        /// channels on, else a dword-masked load and one 16-bit load for an odd last
        /// channel, written by exact-size stores;
        /// BF16 byte planes by a byte shuffle and a quadword permute), an F32 group as two
        /// 8-lane halves (a partial one the same way).
        #[derive(Clone, Copy)]
        struct Group16 {
            /// Dword masks of an F32 partial group's two halves.
            halves: [__m256i; 2],
            /// A 16-bit partial group's dword mask of its channel pairs.
            pairs: __m256i,
            /// A 16-bit partial group's odd last channel: a mask of its dword lane and
            /// its byte offset.
            odd: Option<(__m256i, usize)>,
            /// The partial group's channels (none: a 32-slot group's second half, when
            /// the last group holds at most 16).
            nv: usize,
            /// 16-bit partial groups read by exact-size loads at every size (see
            /// [`dense_reads`]), not `vpmaskmovd` below 16 bytes.
            exact: bool,
            /// A 16-bit partial group's mask of its lanes (below `nv`).
            lanes: __m256i,
            /// One past the last readable source byte: a partial group at least 32 bytes
            /// before it is read by one whole-vector load, its missing lanes masked to
            /// zero (see [`Group16::read_over`]).
            end: *const u8,
        }

        impl Group16 {
            /// Not inlined: inlined, the masks were recomputed from `nv` in every pixel
            /// (`f32[8,14,31,12]` into 1x4x4x16 tiles: 8% more instructions).
            #[inline(never)]
            #[target_feature(enable = "avx2,f16c")]
            fn new(nv: usize, exact: bool, end: *const u8) -> Self {
                let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
                let last = _mm256_set1_epi32((nv / 2) as i32);
                let below = |n: usize| _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), lanes);
                let lanes16 =
                    _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                Group16 {
                    halves: [below(nv.min(8)), below(nv.saturating_sub(8))],
                    pairs: _mm256_cmpgt_epi32(last, lanes),
                    odd: (nv % 2 == 1).then(|| (_mm256_cmpeq_epi32(last, lanes), 4 * (nv / 2))),
                    nv,
                    exact,
                    lanes: _mm256_cmpgt_epi16(_mm256_set1_epi16(nv as i16), lanes16),
                    end,
                }
            }

            /// The 32 bytes at `p` with the lanes outside `mask` zero, when all 32 are
            /// readable (at least 32 bytes before `end`): one load and an AND, where
            /// `vpmaskmovd` or a chain of exact-size loads took most of a few-channel
            /// pixel's time (CastTess of `f32[1,224,224,3]` into 1x4x4x16 tiles, F16:
            /// 420 -> 257 us). The bytes past the group are the source's own, read and
            /// dropped.
            ///
            /// # Safety
            /// `p` is at or before `end`, in the same allocation.
            #[inline(always)]
            unsafe fn read_over(&self, p: *const u8, mask: __m256i) -> Option<__m256i> {
                // SAFETY: the 32 bytes lie before `end` (checked), in the readable source.
                unsafe {
                    if (self.end as usize).saturating_sub(p as usize) >= 32 {
                        Some(_mm256_and_si256(_mm256_loadu_si256(p.cast()), mask))
                    } else {
                        None
                    }
                }
            }

            /// The first `n <= 8` dwords at `p` (`mask`: those lanes), the rest zero:
            /// [`Group16::read_over`] where it may, else [`load_dwords`].
            ///
            /// # Safety
            /// The `n` dwords are readable, and `p` at or before `end`.
            #[inline(always)]
            unsafe fn read_dwords(&self, p: *const u8, n: usize, mask: __m256i) -> __m256i {
                // SAFETY: the caller's.
                unsafe {
                    if n == 0 {
                        return _mm256_setzero_si256();
                    }
                    match self.read_over(p, mask) {
                        Some(v) => v,
                        None => load_dwords(p, n, mask),
                    }
                }
            }

            /// The 16 lanes of a 16-bit group (a partial one's missing lanes zero, or,
            /// from byte planes, whatever the tile holds there); `E`: a group of 8 slots,
            /// in the low 8 lanes (the high ones zero).
            ///
            /// # Safety
            /// The group's elements readable (a byte-plane group: all of its bytes).
            #[inline(always)]
            unsafe fn read16<const PL: bool, const E: bool>(
                &self,
                p: *const u8,
                whole: bool,
            ) -> __m256i {
                // SAFETY: the accesses touch the readable bytes only (caller).
                unsafe {
                    if PL {
                        return load_planes(p, if E { 8 } else { 16 });
                    }
                    if E && whole {
                        return _mm256_zextsi128_si256(_mm_loadu_si128(p.cast()));
                    }
                    if whole {
                        return _mm256_loadu_si256(p.cast());
                    }
                    if let Some(v) = self.read_over(p, self.lanes) {
                        return v;
                    }
                    if self.nv >= 8 || self.exact {
                        return load_low_bytes(p, 2 * self.nv);
                    }
                    let x = _mm256_maskload_epi32(p.cast(), self.pairs);
                    match self.odd {
                        Some((lane, at)) => {
                            let e = _mm256_set1_epi32(i32::from(
                                p.add(at).cast::<u16>().read_unaligned(),
                            ));
                            _mm256_or_si256(x, _mm256_and_si256(e, lane))
                        }
                        None => x,
                    }
                }
            }

            /// Writes the 16 lanes `y` of a 16-bit group: all 16 slots when `whole`,
            /// else the partial group's channels (elements); `E`: a group of 8 slots, the
            /// low 8 lanes.
            ///
            /// # Safety
            /// Those slots writable.
            #[inline(always)]
            unsafe fn write16<const PL: bool, const E: bool>(
                &self,
                p: *mut u8,
                y: __m256i,
                whole: bool,
            ) {
                // SAFETY: the accesses touch the writable bytes only (caller).
                unsafe {
                    if PL && whole {
                        return store_planes(p, y, if E { 8 } else { 16 });
                    }
                    if E && whole {
                        return _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(y));
                    }
                    if whole {
                        return _mm256_storeu_si256(p.cast(), y);
                    }
                    store_low_bytes(p, y, 2 * self.nv);
                }
            }

            /// The two halves of an F32 group (`E`: a group of 8 slots, the first half;
            /// the second zero).
            ///
            /// # Safety
            /// The group's elements readable.
            #[inline(always)]
            unsafe fn read32<const E: bool>(&self, p: *const u8, whole: bool) -> [__m256i; 2] {
                // SAFETY: masked-off dwords are not accessed (caller: the rest readable).
                unsafe {
                    if E {
                        let v = if whole {
                            _mm256_loadu_si256(p.cast())
                        } else {
                            self.read_dwords(p, self.nv, self.halves[0])
                        };
                        return [v, _mm256_setzero_si256()];
                    }
                    if whole {
                        [
                            _mm256_loadu_si256(p.cast()),
                            _mm256_loadu_si256(p.add(32).cast()),
                        ]
                    } else {
                        [
                            self.read_dwords(p, self.nv.min(8), self.halves[0]),
                            self.read_dwords(p.add(32), self.nv.saturating_sub(8), self.halves[1]),
                        ]
                    }
                }
            }

            /// Writes the two halves `v` of an F32 group (all 16 slots when `whole`; `E`:
            /// a group of 8 slots, the first half).
            ///
            /// # Safety
            /// Those slots writable.
            #[inline(always)]
            unsafe fn write32<const E: bool>(&self, p: *mut u8, v: [__m256i; 2], whole: bool) {
                // SAFETY: masked-off dwords are not accessed (caller: the rest writable).
                unsafe {
                    if E {
                        return if whole {
                            _mm256_storeu_si256(p.cast(), v[0])
                        } else {
                            store_low_bytes(p, v[0], 4 * self.nv)
                        };
                    }
                    if whole {
                        _mm256_storeu_si256(p.cast(), v[0]);
                        _mm256_storeu_si256(p.add(32).cast(), v[1]);
                    } else {
                        store_low_bytes(p, v[0], 4 * self.nv.min(8));
                        store_low_bytes(p.add(32), v[1], 4 * self.nv.saturating_sub(8));
                    }
                }
            }
        }

        /// Conversions through 16- or 32-slot groups (tiles or blocks of 16 channel
        /// slots, tiles of 32), one 16-slot half per vector or pair of vectors
        /// ([`Group16`]): a full half is a load and a store (16-bit) or two of each
        /// (F32), a partial last group's halves the masked accesses, the padding slots
        /// zero in the same stores; a conversion runs per 8-lane quarter (16-bit copies
        /// move bits). The group walk (`grid_direct`) took an 8-lane block, a tail of
        /// byte-sized pieces and zero stores per pixel, about 100 instructions
        /// (`bf16[1,57,13,12]` into (4,4) blocks: 9x the bytes' floor).
        ///
        /// # Safety
        /// As for `grid_direct`, and `groups16_fit` holds.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        pub(super) unsafe fn grid_groups16<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            src_end: *const u8,
        ) {
            // SAFETY: same contract; `groups16_fit` allows 8, 16 or 32 slots.
            unsafe {
                match r.slots {
                    32 => groups_of_halves::<S, D, SP, DP, 2, false>(src, s, dst, d, r, g, src_end),
                    16 => groups_of_halves::<S, D, SP, DP, 1, false>(src, s, dst, d, r, g, src_end),
                    _ => groups_of_halves::<S, D, SP, DP, 1, true>(src, s, dst, d, r, g, src_end),
                }
            }
        }

        /// The 16-bit lanes of a group's halves (BF16 byte planes of 32 slots: both
        /// planes loaded, their bytes interleaved per 128-bit lane and the lanes put in
        /// order).
        ///
        /// # Safety
        /// As for [`Group16::read16`], per half (byte planes: the whole group).
        #[inline(always)]
        unsafe fn read_halves<const PL: bool, const K: usize, const E: bool>(
            p: *const u8,
            h: &[Group16; K],
            whole: [bool; K],
        ) -> [__m256i; K] {
            // SAFETY: the caller's.
            unsafe {
                if PL && K == 2 {
                    let (lo, hi) = (
                        _mm256_loadu_si256(p.cast()),
                        _mm256_loadu_si256(p.add(32).cast()),
                    );
                    let (a, b) = (_mm256_unpacklo_epi8(lo, hi), _mm256_unpackhi_epi8(lo, hi));
                    let mut x = [_mm256_permute2x128_si256::<0x20>(a, b); K];
                    x[K - 1] = _mm256_permute2x128_si256::<0x31>(a, b);
                    return x;
                }
                // Loops, not `array::from_fn`: a closure there would not inherit the
                // caller's target features, and its intrinsics would become calls.
                let mut x = [_mm256_setzero_si256(); K];
                for k in 0..K {
                    x[k] = h[k].read16::<PL, E>(p.add(32 * k), whole[k]);
                }
                x
            }
        }

        /// Writes the 16-bit lanes `y` of a group's halves (byte planes of 32 slots:
        /// whole, the inverse of [`read_halves`]).
        ///
        /// # Safety
        /// As for [`Group16::write16`], per half (byte planes: the whole group).
        #[inline(always)]
        unsafe fn write_halves<const PL: bool, const K: usize, const E: bool>(
            p: *mut u8,
            y: [__m256i; K],
            h: &[Group16; K],
            whole: [bool; K],
        ) {
            // SAFETY: the caller's.
            unsafe {
                if PL && K == 2 {
                    // No closure here: it would not inherit the caller's target features.
                    let p0 = _mm256_permute4x64_epi64::<0xD8>(split_bytes(y[0]));
                    let p1 = _mm256_permute4x64_epi64::<0xD8>(split_bytes(y[K - 1]));
                    _mm256_storeu_si256(p.cast(), _mm256_permute2x128_si256::<0x20>(p0, p1));
                    _mm256_storeu_si256(
                        p.add(32).cast(),
                        _mm256_permute2x128_si256::<0x31>(p0, p1),
                    );
                    return;
                }
                for k in 0..K {
                    if k > 0 && !whole[k] && h[k].nv == 0 {
                        continue;
                    }
                    h[k].write16::<PL, E>(p.add(32 * k), y[k], whole[k]);
                }
            }
        }

        /// [`grid_groups16`] for groups of `K` halves.
        ///
        /// # Safety
        /// As for [`grid_groups16`], with `r.slots == 16 * K`, or 8 with `E` (one
        /// half of 8 slots).
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn groups_of_halves<
            S: Elem,
            D: Elem,
            const SP: bool,
            const DP: bool,
            const K: usize,
            const E: bool,
        >(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
            src_end: *const u8,
        ) {
            let (nv, ns) = r.group(r.groups() - 1);
            // The last group's halves: accesses, read whole, written whole (a full
            // group's halves are whole on both sides, their masks unused).
            let exact = dense_reads::<S>(s, r);
            let mut h = [Group16::new(nv.min(16), exact, src_end); K];
            let mut last_rd = [nv >= if E { 8 } else { 16 }; K];
            for k in 1..K {
                h[k] = Group16::new(nv.saturating_sub(16 * k).min(16), exact, src_end);
                last_rd[k] = nv >= 16 * (k + 1);
            }
            let last_wr = [ns == r.slots; K];
            // SAFETY (for `move_group`): its group's elements readable and slots
            // writable, each half whole as its flags say (see the walk below).
            let move_group = |sp: *const u8, dp: *mut u8, rd: [bool; K], wr: [bool; K]| unsafe {
                if S::W == 2 && S::DTYPE == D::DTYPE {
                    let x = read_halves::<SP, K, E>(sp, &h, rd);
                    return write_halves::<DP, K, E>(dp, x, &h, wr);
                }
                let mut v = [[_mm256_setzero_si256(); 2]; K];
                if S::W == 4 {
                    for k in 0..K {
                        v[k] = h[k].read32::<E>(sp.add(64 * k), rd[k]);
                    }
                } else {
                    let x = read_halves::<SP, K, E>(sp, &h, rd);
                    for k in 0..K {
                        let lo = widen_to(S::DTYPE, D::DTYPE, _mm256_castsi256_si128(x[k]));
                        // A partial half of at most 8 channels: its high 8 lanes are
                        // zero (or not written), no conversion for them. Groups of one
                        // half only: with two, the test per half measured 1.1x slower.
                        v[k] = if E || (K == 1 && !rd[k] && h[k].nv <= 8) {
                            [lo, _mm256_setzero_si256()]
                        } else {
                            [
                                lo,
                                widen_to(S::DTYPE, D::DTYPE, _mm256_extracti128_si256::<1>(x[k])),
                            ]
                        };
                    }
                }
                if D::W == 4 {
                    for k in 0..K {
                        // An empty second half of a last group written as its channels:
                        // nothing to store (two masked stores measured 1.09x slower).
                        if k > 0 && !wr[k] && h[k].nv == 0 {
                            continue;
                        }
                        h[k].write32::<E>(dp.add(64 * k), v[k], wr[k]);
                    }
                } else {
                    let mut y = [_mm256_setzero_si256(); K];
                    for k in 0..K {
                        let lo = narrow(D::DTYPE, v[k][0]);
                        y[k] = if E {
                            _mm256_castsi128_si256(lo)
                        } else if (K == 1 || D::DTYPE == DType::BF16) && !rd[k] && h[k].nv <= 8 {
                            // Its high 8 lanes are zero: so are their 16-bit forms.
                            // With two halves only into BF16, whose narrowing is long
                            // (f32[1,224,224,3] into 1x8x8x32 tiles 1.25x faster; F16
                            // 1.15x slower).
                            _mm256_zextsi128_si256(lo)
                        } else {
                            let lo = _mm256_castsi128_si256(lo);
                            _mm256_inserti128_si256::<1>(lo, narrow(D::DTYPE, v[k][1]))
                        };
                    }
                    write_halves::<DP, K, E>(dp, y, &h, wr)
                }
            };
            // Pixels of one group of at most 32 bytes, every slot written: a row loop
            // with its choices made once (`few_row`); every other grid, the walk below.
            // Into BF16 byte-plane pixels too (`DP`: planes of the row's slots, as
            // `groups16_fit` checked).
            let few = !SP
                && r.groups() == 1
                && ns == r.slots
                && nv * S::W <= 32
                && s.fmt == Fmt::Elements(S::W)
                && (if DP {
                    D::W == 2
                } else {
                    d.fmt == Fmt::Elements(D::W)
                });
            if few {
                let mask = if S::W == 4 {
                    h[0].halves[0]
                } else {
                    h[0].lanes
                };
                let total = r.slots * D::W;
                // SAFETY: rows in bounds (contract): each pixel's `nv` elements readable
                // (up to `src_end`) and its `slots` slots writable.
                // Channels in the high 8 lanes or not, fixed per grid (as a test per
                // pixel, the compiler computed both and chose: BF16 sources 1.4x slower).
                let (sd, dd) = ((src, s.pixel), (dst, d.pixel));
                let row = (r.npix, mask, nv, total, src_end);
                return unsafe {
                    if nv > 8 {
                        few_rows::<S, D, true, DP>(sd, dd, g, row)
                    } else {
                        few_rows::<S, D, false, DP>(sd, dd, g, row)
                    }
                };
            }
            // Out of tiles: the same for pixels written as their channels only (out of
            // BF16 byte-plane pixels too, `SP`).
            let few_out = !DP
                && r.groups() == 1
                && ns == nv
                && nv * S::W.max(D::W) <= 32
                && (if SP {
                    // BF16 copies out of byte planes of up to 16 slots, and anything
                    // out of 8-slot planes: the walk below measured faster
                    // (`bf16[1,224,224,3]` out of 1x4x4x16 tiles 81 us, 124 us here;
                    // out of 1x4x4x8 tiles into F32 129 us, 166 us here).
                    S::W == 2 && (K == 2 || (!E && S::DTYPE != D::DTYPE))
                } else {
                    s.fmt == Fmt::Elements(S::W)
                })
                && d.fmt == Fmt::Elements(D::W);
            if few_out {
                let bytes = nv * D::W;
                let width: usize = if bytes <= 16 { 16 } else { 32 };
                // Pixels whose whole store the row's later pixels overwrite: pixel `i`
                // when `(npix - i) * bytes >= width`, in dense rows only.
                let wide = if d.pixel == bytes {
                    (r.npix + 1).saturating_sub(width.div_ceil(bytes))
                } else {
                    0
                };
                // SAFETY: rows in bounds (contract): each pixel's `nv` elements readable
                // (up to `src_end`) and its channels' bytes writable; in a dense row
                // the bytes after a pixel's are the row's later pixels', written after.
                let (sd, dd) = ((src, s.pixel), (dst, d.pixel));
                let row = (r.npix, nv, (width, wide), src_end);
                return unsafe {
                    if nv > 8 {
                        few_rows_out::<S, D, true, SP>(sd, dd, g, row, r.slots)
                    } else {
                        few_rows_out::<S, D, false, SP>(sd, dd, g, row, r.slots)
                    }
                };
            }
            // Pixel by pixel: group by group (see `GROUP_OUTER_MIN`) measured even here,
            // also for groups a multiple of 2 KiB apart (`bf16[4,15,17,384]` into
            // 1x4x4x16 tiles, 10 KiB apart; `f16[1,31,3,384]`, 4 KiB).
            // SAFETY: rows in bounds (contract): a full group's elements and slots are
            // readable and writable, the last group's `nv` elements readable (a
            // byte-plane group: all of it, as `grid_extent` counts it) and its `ns`
            // slots writable.
            unsafe {
                for_each_group_ordered::<S, D>(src, s, dst, d, r, g, false, |sp, dp, last| {
                    if last {
                        move_group(sp, dp, last_rd, last_wr)
                    } else {
                        move_group(sp, dp, [true; K], [true; K])
                    }
                })
            }
        }

        /// [`few_row`] over every row of a grid (`row`: its arguments after the pointers).
        ///
        /// # Safety
        /// As for [`few_row`], for every row.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn few_rows<S: Elem, D: Elem, const HIGH: bool, const DP: bool>(
            (src, s_pixel): (*const u8, usize),
            (dst, d_pixel): (*mut u8, usize),
            g: Grid,
            (npix, mask, nv, total, end): (usize, __m256i, usize, usize, *const u8),
        ) {
            // SAFETY: the caller's, per row.
            unsafe {
                for_each_row(src, dst, g, |sj, dj| {
                    let (sd, dd) = ((sj, s_pixel), (dj, d_pixel));
                    few_row::<S, D, HIGH, DP>(sd, dd, npix, mask, nv, total, end)
                })
            }
        }

        /// Grid levels of at most this many source bytes a step, or of at most
        /// [`JOIN_SOURCE_SPAN`] bytes in all, may be walked innermost by
        /// [`few_rows_out`]: 28 tiles 8 KiB apart (`f32[1,224,224,3]` out of 1x8x8x32
        /// tiles into F16) measured 1.14x slower so, 2 of them (`f32[4,15,17,5]`) 1.37x
        /// faster, and tiles 4 KiB apart (F16 1x8x8x32) 1.08x to 1.14x faster.
        const JOIN_SOURCE_STEP: usize = 4096;

        /// See [`JOIN_SOURCE_STEP`]: an L1 cache's worth.
        const JOIN_SOURCE_SPAN: usize = 32 << 10;

        /// [`few_row_out`] over every row of a grid (`row`: its arguments after the
        /// pointers; `plane`: the byte planes' size, with `SP`). Where a grid level
        /// puts each row's successor right after it on a dense destination, as W tiles
        /// do on the logical side, its steps are short on the source (see
        /// [`JOIN_SOURCE_STEP`]) and a row's last pixels would store exactly, that level is
        /// walked innermost and those pixels store whole too: its successor, written
        /// next, overwrites the excess
        /// (`f16[1,224,224,3]` out of 1x4x4x16 tiles, rows of 4 pixels of which 2
        /// stored whole: 200 -> 104 us; the tiles' own order, walking the next W
        /// tile's row 4 rows later, took 117). The grid's source reads are checked
        /// against `end` once, not per row.
        ///
        /// # Safety
        /// As for [`few_row_out`], for every row; with `wide > 0`, the destination
        /// rows are dense (`d_pixel` is the channels' bytes).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn few_rows_out<S: Elem, D: Elem, const HIGH: bool, const SP: bool>(
            (src, s_pixel): (*const u8, usize),
            (dst, d_pixel): (*mut u8, usize),
            g: Grid,
            (npix, nv, (width, wide), end): (usize, usize, (usize, usize), *const u8),
            plane: usize,
        ) {
            let bytes = nv * D::W;
            // The level whose next step's row starts where a row ends, if any: walked
            // innermost, so that each row's successor along it comes right after it (the
            // destination's rows then in storage order).
            let next = npix
                .checked_mul(bytes)
                .filter(|_| d_pixel == bytes && wide < npix);
            let level = (0..3).rfind(|&l| {
                let span = g[l].0.saturating_mul(g[l].1);
                g[l].0 > 1
                    && Some(g[l].2) == next
                    && (g[l].1 <= JOIN_SOURCE_STEP || span <= JOIN_SOURCE_SPAN)
            });
            let mut walk = g;
            if let Some(l) = level {
                walk[l..].rotate_left(1);
            }
            // Pixel `i` stores whole when `(2 * npix - i) * bytes >= width`.
            let joined = (2 * npix + 1)
                .saturating_sub(width.div_ceil(bytes))
                .min(npix);
            let reads = (SP || grid_reads_whole(src, s_pixel, npix, &g, end), end);
            let (inner, outer) = (walk[2], [walk[0], walk[1], (1, 0, 0)]);
            // SAFETY: the caller's, per row; a row's store past its end with `joined`
            // lands in the next row along `level`, written right after it.
            unsafe {
                for_each_row(src, dst, outer, |si, di| {
                    let (mut sj, mut dj) = (si, di);
                    for c in 0..inner.0 {
                        let w = if level.is_some() && c + 1 < inner.0 {
                            joined
                        } else {
                            wide
                        };
                        let (sd, dd) = ((sj, s_pixel), (dj, d_pixel));
                        few_row_out::<S, D, HIGH, SP>(sd, dd, npix, nv, (width, w), reads, plane);
                        sj = sj.wrapping_add(inner.1);
                        dj = dj.wrapping_add(inner.2);
                    }
                });
            }
        }

        /// A row of `npix` pixels of one group of `nv` channels (at most 32 bytes) into
        /// pixels of `total` bytes, every slot written: per pixel one whole-vector load
        /// ANDed with the channels' `mask` (exact-size loads for the pixels within 32
        /// bytes of `end`, the tensor's last), the conversion, and whole-vector stores of
        /// the channels and the zeros after them. The group loop made its choices (which
        /// half is whole, whether a read may go past the group, which stores) per pixel,
        /// about 35 instructions; here they are made once per row.
        ///
        /// # Safety
        /// Each pixel's `nv` elements readable, the bytes from the first pixel to `end`
        /// too (one allocation); each pixel's `total` bytes writable; `mask` keeps the
        /// lanes below `nv`; `total` is 16, 32, 64 or 128 and at least the channels'
        /// converted bytes; `DP`: the pixels are BF16 byte planes of `total / 2` slots.
        #[inline(always)]
        unsafe fn few_row<S: Elem, D: Elem, const HIGH: bool, const DP: bool>(
            (src, s_pixel): (*const u8, usize),
            (dst, d_pixel): (*mut u8, usize),
            npix: usize,
            mask: __m256i,
            nv: usize,
            total: usize,
            end: *const u8,
        ) {
            let over = whole_reads(src, s_pixel, npix, end);
            let high = HIGH;
            let written = match (S::W, D::W) {
                (4, 4) => 32,
                (4, _) => 16,
                (_, 4) if high => 64,
                (_, 4) => 32,
                _ => total.min(32),
            };
            let half = written == 16 && total > 16;
            let z = written.next_multiple_of(32);
            let put = FewPixel { total, half, z };
            let (mut sp, mut dp) = (src, dst);
            // SAFETY: the first `over` pixels' 32 bytes lie before `end`, the others'
            // `nv` elements are read exactly; each pixel's `total` bytes are writable.
            // Two loops, not a test per pixel (1.3x slower).
            unsafe {
                for _ in 0..over {
                    put.store::<S, D, HIGH, DP>(
                        dp,
                        _mm256_and_si256(_mm256_loadu_si256(sp.cast()), mask),
                    );
                    sp = sp.wrapping_add(s_pixel);
                    dp = dp.wrapping_add(d_pixel);
                }
                for _ in over..npix {
                    put.store::<S, D, HIGH, DP>(dp, load_low_bytes(sp, nv * S::W));
                    sp = sp.wrapping_add(s_pixel);
                    dp = dp.wrapping_add(d_pixel);
                }
            }
        }

        /// How [`few_row`] writes a pixel: `total` bytes, the zeros after the channels' converted bytes by a 16-byte
        /// store (`half`) and 32-byte stores from `z`.
        #[derive(Clone, Copy)]
        struct FewPixel {
            total: usize,
            half: bool,
            z: usize,
        }

        impl FewPixel {
            /// Converts the pixel's lanes `x` (missing channels zero) and writes all its
            /// `total` bytes at `dp` (`DP`: as BF16 byte planes of `total / 2` slots). A
            /// function, not a closure: a closure would not inherit the caller's target
            /// features.
            ///
            /// # Safety
            /// The `total` bytes at `dp` are writable.
            #[inline(always)]
            unsafe fn store<S: Elem, D: Elem, const HIGH: bool, const DP: bool>(
                self,
                dp: *mut u8,
                x: __m256i,
            ) {
                // SAFETY: every store lies inside the `total` bytes (caller).
                unsafe {
                    let (zero, zero128) = (_mm256_setzero_si256(), _mm_setzero_si128());
                    let (a, b) = lanes_to::<S, D, HIGH>(x);
                    if DP {
                        return store_planes(dp, a, self.total / 2);
                    }
                    if (S::W == 4 && D::W == 2) || self.total == 16 {
                        _mm_storeu_si128(dp.cast(), _mm256_castsi256_si128(a));
                    } else {
                        _mm256_storeu_si256(dp.cast(), a);
                    }
                    if S::W == 2 && D::W == 4 && HIGH {
                        _mm256_storeu_si256(dp.add(32).cast(), b);
                    }
                    if self.half {
                        _mm_storeu_si128(dp.add(16).cast(), zero128);
                    }
                    for at in [self.z, self.z + 32, self.z + 64] {
                        if at < self.total {
                            _mm256_storeu_si256(dp.add(at).cast(), zero);
                        }
                    }
                }
            }
        }

        /// Whether every pixel of every row of grid `g` can be read by a whole 32-byte
        /// load: the furthest pixel's 32 bytes lie before `end` (then no row needs
        /// [`whole_reads`]).
        #[inline(always)]
        fn grid_reads_whole(
            src: *const u8,
            s_pixel: usize,
            npix: usize,
            g: &Grid,
            end: *const u8,
        ) -> bool {
            let mut span = (npix.max(1) - 1).checked_mul(s_pixel);
            for &(n, ss, _) in g {
                span = span.and_then(|x| x.checked_add((n.max(1) - 1).checked_mul(ss)?));
            }
            let room = (end as usize).saturating_sub(src as usize);
            matches!((span, room.checked_sub(32)), (Some(x), Some(r)) if r >= x)
        }

        /// How many of a row's first pixels can be read by whole 32-byte loads: those
        /// whose 32 bytes lie before `end` (pixels go up: `s_pixel` is a byte count), all
        /// of them but in the tensor's last rows, found without a division there (a
        /// division per row cost 1.4x on RGB rows of 4 pixels).
        #[inline(always)]
        fn whole_reads(src: *const u8, s_pixel: usize, npix: usize, end: *const u8) -> usize {
            let room = (end as usize).saturating_sub(src as usize);
            let span = (npix.max(1) - 1).saturating_mul(s_pixel);
            match room.checked_sub(32) {
                None => 0,
                Some(r) if r >= span => npix,
                Some(r) => npix.min(r / s_pixel + 1),
            }
        }

        /// Per 128-bit lane of 8 16-bit lanes: their 8 low bytes, then their 8 high bytes
        /// (the byte planes of 8 slots; [`join_bytes`] undoes it).
        ///
        /// # Safety
        /// The CPU has AVX2 (inlined into an AVX2 caller).
        #[inline(always)]
        unsafe fn split_bytes(y: __m256i) -> __m256i {
            let split = _mm256_setr_epi8(
                0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14, 1,
                3, 5, 7, 9, 11, 13, 15,
            );
            // SAFETY: the caller's.
            unsafe { _mm256_shuffle_epi8(y, split) }
        }

        /// The inverse of [`split_bytes`]: per 128-bit lane, 8 low bytes then 8 high
        /// bytes interleaved into 8 16-bit lanes.
        ///
        /// # Safety
        /// The CPU has AVX2 (inlined into an AVX2 caller).
        #[inline(always)]
        unsafe fn join_bytes(v: __m256i) -> __m256i {
            let join = _mm256_setr_epi8(
                0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10, 3, 11, 4,
                12, 5, 13, 6, 14, 7, 15,
            );
            // SAFETY: the caller's.
            unsafe { _mm256_shuffle_epi8(v, join) }
        }

        /// Writes the 16 16-bit lanes `y` (those past the pixel's channels zero) as a
        /// BF16 byte-plane pixel of `plane` (8, 16 or 32) slots: its low bytes, then its
        /// high bytes, each plane's slots past 16 zero.
        ///
        /// # Safety
        /// The `2 * plane` bytes at `p` are writable; with `plane == 8`, `y`'s high 8
        /// lanes are not stored.
        #[inline(always)]
        unsafe fn store_planes(p: *mut u8, y: __m256i, plane: usize) {
            // SAFETY: every store lies inside the `2 * plane` bytes (caller).
            unsafe {
                let v = split_bytes(y);
                match plane {
                    8 => _mm_storeu_si128(p.cast(), _mm256_castsi256_si128(v)),
                    16 => _mm256_storeu_si256(p.cast(), _mm256_permute4x64_epi64::<0xD8>(v)),
                    _ => {
                        // Quadwords 0, 2 (the 16 low bytes) and 1, 3 (the high), each
                        // followed by zeros.
                        let v = _mm256_permute4x64_epi64::<0xD8>(v);
                        _mm256_storeu_si256(
                            p.cast(),
                            _mm256_zextsi128_si256(_mm256_castsi256_si128(v)),
                        );
                        _mm256_storeu_si256(
                            p.add(plane).cast(),
                            _mm256_zextsi128_si256(_mm256_extracti128_si256::<1>(v)),
                        );
                    }
                }
            }
        }

        /// The 16-bit lanes of a BF16 byte-plane pixel of `plane` (8, 16 or 32) slots,
        /// its first 16 (of 8 slots: 8, the rest zero).
        ///
        /// # Safety
        /// The pixel's `2 * plane` bytes are readable.
        #[inline(always)]
        unsafe fn load_planes(p: *const u8, plane: usize) -> __m256i {
            // SAFETY: every load lies inside the pixel's bytes (caller).
            unsafe {
                match plane {
                    8 => {
                        let v = _mm_loadu_si128(p.cast());
                        _mm256_zextsi128_si256(_mm_unpacklo_epi8(v, _mm_srli_si128::<8>(v)))
                    }
                    16 => join_bytes(_mm256_permute4x64_epi64::<0xD8>(_mm256_loadu_si256(
                        p.cast(),
                    ))),
                    _ => {
                        let (lo, hi) = (
                            _mm_loadu_si128(p.cast()),
                            _mm_loadu_si128(p.add(plane).cast()),
                        );
                        _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi))
                    }
                }
            }
        }

        /// A pixel's lanes `x` (at most 32 bytes of channels) converted: the first 32
        /// bytes of the result, and the next 32 (16-bit to F32 with channels in the
        /// high 8 lanes, `HIGH`; else zero). F32 to 16-bit: the low 16 bytes.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn lanes_to<S: Elem, D: Elem, const HIGH: bool>(x: __m256i) -> (__m256i, __m256i) {
            let zero = _mm256_setzero_si256();
            let (lo128, hi128) = (_mm256_castsi256_si128(x), _mm256_extracti128_si256::<1>(x));
            if S::DTYPE == D::DTYPE || (S::W == 4 && D::W == 4) {
                (x, zero)
            } else if S::W == 4 {
                (_mm256_zextsi128_si256(narrow(D::DTYPE, x)), zero)
            } else if D::W == 4 {
                let b = if HIGH { widen(S::DTYPE, hi128) } else { zero };
                (widen(S::DTYPE, lo128), b)
            } else {
                let lo = narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, lo128));
                let hi = if HIGH {
                    narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, hi128))
                } else {
                    _mm_setzero_si128()
                };
                (_mm256_set_m128i(hi, lo), zero)
            }
        }

        /// CastUntess's counterpart of [`few_row`]: a row of `npix` pixels of one group of
        /// `nv` channels (at most 32 bytes on either side) out of tile or block pixels,
        /// into their channels only, `d_pixel` apart. A pixel's channels are one store
        /// of `width` (16 or 32) bytes where later pixels overwrite what it puts past
        /// them (the first `wide` pixels: dense rows), else exact-size stores; the
        /// group loop's per-pixel choices made once per row. `SP`: the source pixels
        /// are BF16 byte planes of `plane` slots.
        ///
        /// # Safety
        /// Each pixel's `nv` elements readable (byte planes: all its bytes), the bytes
        /// from the first pixel to `end` too (one allocation; with `whole`, every
        /// pixel's 32 bytes lie before `end`); each pixel's channel
        /// bytes writable, and for the first `wide` pixels the `width` bytes from each,
        /// which later pixels then overwrite. (The lanes past `nv` are not masked:
        /// whatever they hold is stored only where a later pixel overwrites it.)
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn few_row_out<S: Elem, D: Elem, const HIGH: bool, const SP: bool>(
            (src, s_pixel): (*const u8, usize),
            (dst, d_pixel): (*mut u8, usize),
            npix: usize,
            nv: usize,
            (width, wide): (usize, usize),
            (whole, end): (bool, *const u8),
            plane: usize,
        ) {
            // Byte-plane pixels are read whole, each inside its tile.
            let over = if SP || whole {
                npix
            } else {
                whole_reads(src, s_pixel, npix, end)
            };
            let bytes = nv * D::W;
            let fast = over.min(wide);
            let (mut sp, mut dp) = (src, dst);
            // SAFETY: the first `over` pixels' 32 bytes lie before `end` (byte planes:
            // each pixel's `2 * plane` bytes are readable), the others' `nv` elements are
            // read exactly; the first `wide` pixels' `width` bytes are writable
            // (caller), the others' channel bytes stored exactly.
            unsafe {
                for _ in 0..fast {
                    let x = if SP {
                        load_planes(sp, plane)
                    } else {
                        _mm256_loadu_si256(sp.cast())
                    };
                    let (a, _) = lanes_to::<S, D, HIGH>(x);
                    if width == 16 {
                        _mm_storeu_si128(dp.cast(), _mm256_castsi256_si128(a));
                    } else {
                        _mm256_storeu_si256(dp.cast(), a);
                    }
                    sp = sp.wrapping_add(s_pixel);
                    dp = dp.wrapping_add(d_pixel);
                }
                for i in fast..npix {
                    let x = if SP {
                        load_planes(sp, plane)
                    } else if i < over {
                        _mm256_loadu_si256(sp.cast())
                    } else {
                        load_low_bytes(sp, nv * S::W)
                    };
                    store_low_bytes(dp, lanes_to::<S, D, HIGH>(x).0, bytes);
                    sp = sp.wrapping_add(s_pixel);
                    dp = dp.wrapping_add(d_pixel);
                }
            }
        }

        /// Pixels of fewer than 8 channels (one partial block each, e.g. RGB) to or from
        /// pixels of up to 32 slots: the generic group walk around `tail` (its block
        /// and zero loops, their counts read per group) cost more than the block; here
        /// the counts are fixed per grid, so a pixel is the partial block and the zero
        /// stores after it, about 2x faster (`bf16[1,64,64,1]` into 1x4x4x16 tiles).
        ///
        /// # Safety
        /// As for `grid_direct`, with one group of `valid < 8` elements and at most 32
        /// written slots.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn grid_few<S: Elem, D: Elem, const SP: bool, const DP: bool>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (fixed::<S>(s.fmt, SP), fixed::<D>(d.fmt, DP));
            let (nv, ns) = r.group(0);
            let w = ns.min(8);
            let zeros = ns.saturating_sub(8);
            // Whole first blocks when all 8 slots are written (and byte planes are the
            // pixel's own: `pl == ns`); they also zero slots 8..16 of 16- and 32-slot
            // byte-plane pixels.
            let whole = w == 8 && !matches!(df, Fmt::Planes(pl) if pl != ns);
            let k0 = if whole && DP { 16 } else { 8 };
            // SAFETY: rows in bounds (contract); the tail reads elements below nv and
            // writes slots below w <= ns; the zero blocks write slots 8..ns, whole
            // blocks of 8 (ns is a multiple of 8 when above 8: a tile's slots) or the
            // element loop.
            unsafe {
                for_each_row(src, dst, g, |sj, dj| {
                    let (mut sp, mut dp) = (sj, dj);
                    for _ in 0..r.npix {
                        if whole {
                            first_block::<S, D>(sp, sf, dp, df, nv);
                        } else {
                            tail::<S, D>(sp, sf, dp, df, 0, nv, w);
                        }
                        if zeros > 0 {
                            let mut k = k0;
                            while k + 8 <= ns {
                                store16_or_32::<D>(dp, df, k);
                                k += 8;
                            }
                            while k < ns {
                                write::<D>(dp, df, k, 0);
                                k += 1;
                            }
                        }
                        sp = sp.wrapping_add(s.pixel);
                        dp = dp.wrapping_add(d.pixel);
                    }
                })
            }
        }

        /// The first 8 slots of a pixel from its `v < 8` elements (the rest zero), with
        /// whole-vector stores: a byte-plane pixel of 16 or 32 slots gets its two planes'
        /// first 16 bytes (slots 8 to 15 zero), one of 8 slots both planes at once.
        ///
        /// # Safety
        /// The `v` elements readable; slots 0..8 writable, and for byte planes of `pl > 8`
        /// slots 8..16 of each plane too.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn first_block<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            dp: *mut u8,
            df: Fmt,
            v: usize,
        ) {
            // SAFETY: the loads read exactly the v elements (both planes for byte
            // planes), the stores write the slots named above (caller).
            unsafe {
                let load16 = || match sf {
                    Fmt::Planes(pl) => {
                        _mm_unpacklo_epi8(load_bytes(sp, v), load_bytes(sp.add(pl), v))
                    }
                    Fmt::Elements(_) => load_bytes(sp, 2 * v),
                };
                let load32 = || load_low_bytes(sp, 4 * v);
                if D::W == 4 {
                    let y = if S::W == 4 {
                        load32()
                    } else {
                        widen(S::DTYPE, load16())
                    };
                    return _mm256_storeu_si256(dp.cast(), y);
                }
                let y = match S::W {
                    4 => narrow(D::DTYPE, load32()),
                    _ if S::DTYPE == D::DTYPE => load16(),
                    _ => narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, load16())),
                };
                match df {
                    Fmt::Planes(pl) => {
                        let split =
                            _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
                        let y = _mm_shuffle_epi8(y, split);
                        if pl == 8 {
                            _mm_storeu_si128(dp.cast(), y);
                        } else {
                            let z = _mm_setzero_si128();
                            _mm_storeu_si128(dp.cast(), _mm_unpacklo_epi64(y, z));
                            _mm_storeu_si128(dp.add(pl).cast(), _mm_unpackhi_epi64(y, z));
                        }
                    }
                    Fmt::Elements(_) => _mm_storeu_si128(dp.cast(), y),
                }
            }
        }

        /// The partial block at slot `k` of a group: converts its `v < 8` elements
        /// (lanes past them are zero, so they convert to zero) and writes `w <= 8`
        /// slots; all in registers, with exact-size loads and stores (no stack buffer,
        /// whose byte writes and vector reload stalled store forwarding: `f32[1,224,224,3]`
        /// into 16-slot tiles took 47 cycles per pixel). A byte-plane source reads 8
        /// bytes of each plane where the group has them (exact-size byte loads made
        /// bf16 `[1,64,64,1]` read back from 16-slot tiles 4x slower).
        ///
        /// # Safety
        /// Elements `k..k + v` readable (a byte-plane group: all of it) and slots
        /// `k..k + w` writable; formats direct.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn tail<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            dp: *mut u8,
            df: Fmt,
            k: usize,
            v: usize,
            w: usize,
        ) {
            // SAFETY: the partial loads read exactly elements k..k + v (both planes for
            // byte planes), the partial stores write exactly slots k..k + w (caller).
            unsafe {
                let load16 = || match sf {
                    // A byte-plane group is readable whole (see `grid_extent`): 8 bytes
                    // of each plane when they fit, the lanes past `v` then zeroed.
                    Fmt::Planes(pl) if k + 8 <= pl => {
                        let lanes = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
                        let keep = _mm_cmpgt_epi16(_mm_set1_epi16(v as i16), lanes);
                        let x = _mm_unpacklo_epi8(
                            _mm_loadl_epi64(sp.add(k).cast()),
                            _mm_loadl_epi64(sp.add(pl + k).cast()),
                        );
                        _mm_and_si128(x, keep)
                    }
                    Fmt::Planes(pl) => {
                        _mm_unpacklo_epi8(load_bytes(sp.add(k), v), load_bytes(sp.add(pl + k), v))
                    }
                    Fmt::Elements(_) => load_bytes(sp.add(2 * k), 2 * v),
                };
                let store16 = |y: __m128i| match df {
                    Fmt::Planes(pl) => {
                        let split =
                            _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
                        let y = _mm_shuffle_epi8(y, split);
                        store_bytes(dp.add(k), y, w);
                        store_bytes(dp.add(pl + k), _mm_unpackhi_epi64(y, y), w);
                    }
                    Fmt::Elements(_) => store_bytes(dp.add(2 * k), y, 2 * w),
                };
                let store32 = |y: __m256i| store_low_bytes(dp.add(4 * k), y, 4 * w);
                match (S::W, D::W) {
                    (4, _) => {
                        let x = load_low_bytes(sp.add(4 * k), 4 * v);
                        if D::W == 4 {
                            store32(x)
                        } else {
                            store16(narrow(D::DTYPE, x))
                        }
                    }
                    (_, 4) => store32(widen(S::DTYPE, load16())),
                    _ if S::DTYPE == D::DTYPE => store16(load16()),
                    _ => store16(narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, load16()))),
                }
            }
        }

        /// The `n <= 16` bytes at `p` in the low bytes of a vector (the rest zero), by
        /// loads of 8, 4, 2 and 1 bytes.
        ///
        /// # Safety
        /// The `n` bytes are readable.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn load_bytes(p: *const u8, n: usize) -> __m128i {
            // SAFETY: each piece reads bytes below n (caller).
            unsafe {
                if n == 16 {
                    return _mm_loadu_si128(p.cast());
                }
                let mut x = _mm_setzero_si128();
                let mut off = 0;
                if n & 8 != 0 {
                    x = _mm_loadl_epi64(p.cast());
                    off = 8;
                }
                let mut rest = 0u64;
                let mut sh = 0;
                if n & 4 != 0 {
                    rest = u64::from(p.add(off).cast::<u32>().read_unaligned());
                    sh = 32;
                }
                if n & 2 != 0 {
                    let h = p.add(off + sh / 8).cast::<u16>().read_unaligned();
                    rest |= u64::from(h) << sh;
                    sh += 16;
                }
                if n & 1 != 0 {
                    rest |= u64::from(p.add(off + sh / 8).read()) << sh;
                }
                if off == 0 {
                    _mm_cvtsi64_si128(rest as i64)
                } else {
                    _mm_insert_epi64::<1>(x, rest as i64)
                }
            }
        }

        /// Whether row `r`'s 16-bit partial groups are read by exact-size loads at every
        /// size: when the source's groups and pixels are back to back (a dense tensor's),
        /// so the reads share lines the cache holds. `vpmaskmovd` is slow on AMD Zen 1
        /// when the data is cached (CastTess of `f16[1,224,224,3]` into 1x4x4x16 tiles:
        /// 52% of the time on the masked load) and faster when reads miss it (out of
        /// tiles' padded pixels, see [`load_dwords`]). F32 sources keep `load_dwords`:
        /// exact loads there measured 1.23x slower for F32 -> F32 (`[1,224,224,3]`).
        fn dense_reads<S: Elem>(s: Side, r: Row) -> bool {
            let dense = |n: usize| n.saturating_mul(S::W);
            S::W == 2
                && s.fmt == Fmt::Elements(S::W)
                && (r.groups() == 1 || s.group == dense(r.slots))
                && s.pixel <= dense(r.valid)
        }

        /// The first `n <= 8` dwords at `p` (`mask`: those lanes), the rest zero: none
        /// read for `n == 0`, exact-size loads from 4 dwords on, `vpmaskmovd` below
        /// (measured faster there on Zen 1 when the reads miss the cache:
        /// `f32[1,224,224,3]` out of 1x4x4x16 tiles 620 us, 820 us by exact loads).
        ///
        /// # Safety
        /// The `n` dwords are readable.
        #[inline(always)]
        unsafe fn load_dwords(p: *const u8, n: usize, mask: __m256i) -> __m256i {
            // SAFETY: the caller's.
            unsafe {
                match n {
                    0 => _mm256_setzero_si256(),
                    1..4 => _mm256_maskload_epi32(p.cast(), mask),
                    _ => load_low_bytes(p, 4 * n),
                }
            }
        }

        /// The `n <= 32` bytes at `p` in the low bytes of a vector (the rest zero): a
        /// partial group's elements by exact-size loads (none for `n == 0`), which
        /// measured faster than `vpmaskmovd` on AMD Zen 1 from 16 bytes on (CastUntess
        /// of `f32[1,57,55,40]` out of 1x8x8x32 tiles into F16 78 -> 38 us, of
        /// `f32[8,14,31,12]` out of 1x4x4x16 tiles 44 -> 33 us).
        ///
        /// # Safety
        /// The `n` bytes are readable.
        #[inline(always)]
        unsafe fn load_low_bytes(p: *const u8, n: usize) -> __m256i {
            // SAFETY: each piece reads bytes below n (caller).
            unsafe {
                if n > 16 {
                    let lo = _mm_loadu_si128(p.cast());
                    let hi = load_bytes(p.add(16), n - 16);
                    _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
                } else if n == 0 {
                    _mm256_setzero_si256()
                } else {
                    _mm256_zextsi128_si256(load_bytes(p, n))
                }
            }
        }

        /// Stores the `n <= 32` low bytes of `y` at `p`: a partial group's elements by
        /// exact-size stores. `vpmaskmovd` stores are slow on AMD Zen 1: CastUntess of
        /// `f16[1,57,55,40]` out of 1x4x4x16 tiles 41 -> 30 us, of F32 68 -> 46 us.
        ///
        /// # Safety
        /// The `n` bytes are writable.
        #[inline(always)]
        unsafe fn store_low_bytes(p: *mut u8, y: __m256i, n: usize) {
            // SAFETY: each piece writes bytes below n (caller).
            unsafe {
                let lo = _mm256_castsi256_si128(y);
                if n >= 16 {
                    _mm_storeu_si128(p.cast(), lo);
                    store_bytes(p.add(16), _mm256_extracti128_si256::<1>(y), n - 16);
                } else {
                    store_bytes(p, lo, n);
                }
            }
        }

        /// Stores the `n <= 16` low bytes of `x` at `p`, by stores of 8, 4, 2 and 1 bytes.
        ///
        /// # Safety
        /// The `n` bytes are writable.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn store_bytes(p: *mut u8, x: __m128i, n: usize) {
            // SAFETY: each piece writes bytes below n (caller).
            unsafe {
                if n == 16 {
                    return _mm_storeu_si128(p.cast(), x);
                }
                let mut off = 0;
                let mut rest = _mm_cvtsi128_si64(x) as u64;
                if n & 8 != 0 {
                    p.cast::<u64>().write_unaligned(rest);
                    rest = _mm_extract_epi64::<1>(x) as u64;
                    off = 8;
                }
                if n & 4 != 0 {
                    p.add(off).cast::<u32>().write_unaligned(rest as u32);
                    rest >>= 32;
                    off += 4;
                }
                if n & 2 != 0 {
                    p.add(off).cast::<u16>().write_unaligned(rest as u16);
                    rest >>= 16;
                    off += 2;
                }
                if n & 1 != 0 {
                    p.add(off).write(rest as u8);
                }
            }
        }

        /// Stores 8 zero slots at `k` (direct format).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn store16_or_32<D: Elem>(dp: *mut u8, df: Fmt, k: usize) {
            // SAFETY: 8 slots at k writable (caller).
            unsafe {
                if D::W == 4 {
                    _mm256_storeu_si256(dp.add(4 * k).cast(), _mm256_setzero_si256());
                } else {
                    store16(dp, df, k, _mm_setzero_si128());
                }
            }
        }

        /// Grids with a strided side that [`transposed`] does not take: every 8-lane
        /// block through two stack buffers.
        ///
        /// # Safety
        /// As for `grid`.
        #[inline(never)]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn grid_strided<S: Elem, D: Elem>(
            src: *const u8,
            s: Side,
            dst: *mut u8,
            d: Side,
            r: Row,
            g: Grid,
        ) {
            let (sf, df) = (s.fmt, d.fmt);
            let (af, bf) = (Fmt::Elements(S::W), Fmt::Elements(D::W));
            // SAFETY: groups in bounds (contract); elements k..k+v readable and slots
            // k..k+w writable; the buffers hold 8 elements of up to 4 bytes.
            unsafe {
                for_each_group::<S, D>(src, s, dst, d, r, g, |sp, dp, nv, ns| {
                    let mut k = 0;
                    while k < ns {
                        let (v, w) = (nv.saturating_sub(k).min(8), (ns - k).min(8));
                        let mut a = [0u32; 8];
                        let mut b = [0u32; 8];
                        let (ap, bp) = (a.as_mut_ptr().cast::<u8>(), b.as_mut_ptr().cast::<u8>());
                        for l in 0..v {
                            write::<S>(ap, af, l, read::<S>(sp, sf, k + l));
                        }
                        block::<S, D>(ap, af, 0, bp, bf, 0);
                        for l in 0..w {
                            write::<D>(dp, df, k + l, read::<D>(bp, bf, l));
                        }
                        k += 8;
                    }
                })
            };
        }

        /// Converts exactly 8 elements at `sk` into 8 slots at `dk` (direct formats).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn block<S: Elem, D: Elem>(
            sp: *const u8,
            sf: Fmt,
            sk: usize,
            dp: *mut u8,
            df: Fmt,
            dk: usize,
        ) {
            // SAFETY: 8 elements at sk and 8 slots at dk are accessible (caller).
            unsafe {
                match (S::W, D::W) {
                    (4, 4) => _mm256_storeu_si256(
                        dp.add(4 * dk).cast(),
                        _mm256_loadu_si256(sp.add(4 * sk).cast()),
                    ),
                    (4, _) => {
                        let x = _mm256_loadu_si256(sp.add(4 * sk).cast());
                        store16(dp, df, dk, narrow(D::DTYPE, x));
                    }
                    (_, 4) => {
                        let x = widen(S::DTYPE, load16(sp, sf, sk));
                        _mm256_storeu_si256(dp.add(4 * dk).cast(), x);
                    }
                    _ if S::DTYPE == D::DTYPE => store16(dp, df, dk, load16(sp, sf, sk)),
                    _ => store16(
                        dp,
                        df,
                        dk,
                        narrow(D::DTYPE, widen_to(S::DTYPE, D::DTYPE, load16(sp, sf, sk))),
                    ),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn load16(p: *const u8, f: Fmt, k: usize) -> __m128i {
            // SAFETY: 8 elements at k readable (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        let lo = _mm_loadl_epi64(p.add(k).cast());
                        let hi = _mm_loadl_epi64(p.add(pl + k).cast());
                        _mm_unpacklo_epi8(lo, hi)
                    }
                    Fmt::Elements(_) => _mm_loadu_si128(p.add(2 * k).cast()),
                }
            }
        }

        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        unsafe fn store16(p: *mut u8, f: Fmt, k: usize, v: __m128i) {
            // SAFETY: 8 slots at k writable (caller).
            unsafe {
                match f {
                    Fmt::Planes(pl) => {
                        let split =
                            _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
                        let v = _mm_shuffle_epi8(v, split);
                        _mm_storel_epi64(p.add(k).cast(), v);
                        _mm_storel_epi64(p.add(pl + k).cast(), _mm_unpackhi_epi64(v, v));
                    }
                    Fmt::Elements(_) => _mm_storeu_si128(p.add(2 * k).cast(), v),
                }
            }
        }

        /// 8 F16 or BF16 lanes to F32 bits, exactly (a BF16 NaN gets its quiet bit).
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn widen(from: DType, v: __m128i) -> __m256i {
            if from == DType::F16 {
                return _mm256_castps_si256(_mm256_cvtph_ps(v));
            }
            let x = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(v));
            // NaN lanes by one unordered compare (not a mask and an integer compare); a
            // branch past the quiet bit when no lane is a NaN measured 1.28x slower on Zen 1.
            let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(_mm256_castsi256_ps(x), _mm256_castsi256_ps(x));
            let quiet = _mm256_and_si256(_mm256_castps_si256(nan), _mm256_set1_epi32(0x0040_0000));
            _mm256_or_si256(x, quiet)
        }

        /// [`widen`] of lanes that [`narrow`] takes on to `to`, but BF16 into F16 without
        /// the quiet bit: `vcvtps2ph` quiets every NaN it narrows, the same bits.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn widen_to(from: DType, to: DType, v: __m128i) -> __m256i {
            if from == DType::BF16 && to == DType::F16 {
                _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(v))
            } else {
                widen(from, v)
            }
        }

        /// 8 F32 lanes to F16 (F16C) or BF16 (integer round to nearest even) lanes.
        #[inline]
        #[target_feature(enable = "avx2,f16c")]
        fn narrow(to: DType, x: __m256i) -> __m128i {
            if to == DType::F16 {
                return _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(_mm256_castsi256_ps(x));
            }
            let high = _mm256_srli_epi32::<16>(x);
            let lsb = _mm256_and_si256(high, _mm256_set1_epi32(1));
            let biased = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7FFF)), lsb);
            let mut r = _mm256_srli_epi32::<16>(biased);
            // A NaN keeps its high half with the quiet bit set (lanes found as in `widen`:
            // f32->bf16 1.06x, f16->bf16 1.16x faster than the integer compare on Zen 1).
            let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(_mm256_castsi256_ps(x), _mm256_castsi256_ps(x));
            let quiet = _mm256_or_si256(high, _mm256_set1_epi32(0x40));
            r = _mm256_blendv_epi8(r, quiet, _mm256_castps_si256(nan));
            _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::convert::EF32;

    /// `l1_sets` counts the sets that addresses `step` bytes apart visit, and
    /// `groups_crowd_l1` asks for the walk group by group exactly when a pixel's groups
    /// put `L1_WAYS` lines into one set, counted by brute force over the addresses.
    #[test]
    fn l1_sets_and_crowding_match_the_addresses() {
        let sets_by_brute_force = |step: usize| {
            let mut seen = [false; 64];
            for i in 0..64 {
                seen[(i * step / LINE) % 64] = true;
            }
            seen.iter().filter(|&&x| x).count()
        };
        for step in [64, 128, 192, 1024, 2048, 3072, 4096, 8192, 100352, 73728] {
            assert_eq!(l1_sets(step), sets_by_brute_force(step), "step {step}");
        }
        // Not a multiple of a line: spread over every set.
        assert_eq!(l1_sets(100), 64);
        // F32 16-slot groups: one line each; the dense side's groups are consecutive.
        let crowd = |channels: usize, tile_step: usize| {
            let tiled = Side {
                pixel: 64,
                group: tile_step,
                fmt: Fmt::Elements(4),
                ahead: 0,
            };
            let dense = Side {
                pixel: 4 * channels,
                group: 64,
                fmt: Fmt::Elements(4),
                ahead: 0,
            };
            let row = Row {
                npix: 4,
                valid: channels,
                slots: 16,
                pad: true,
            };
            groups_crowd_l1::<EF32, EF32>(dense, tiled, row)
        };
        // f32[1,56,56,64] into 1x4x4x16 tiles: 4 groups 100352 bytes apart (2 sets).
        assert!(!crowd(64, 100352));
        // f32[1,7,7,2048]: 128 groups 4 KiB apart, all in one set.
        assert!(crowd(2048, 4096));
        // As many one-line groups in one set as it has ways fill it; one fewer does not.
        let ways = l1_ways();
        assert!(crowd(16 * ways, 8192));
        assert!(!crowd(16 * (ways - 1), 8192));
        // The same groups 1 KiB apart spread over 4 sets.
        assert!(!crowd(16 * ways, 1024));
    }

    /// The bytes of a row's groups on side `x`: every element of every group (the
    /// slots a tile side holds), by brute force.
    fn row_bytes(x: Side, r: Row, w: usize) -> std::collections::BTreeSet<usize> {
        let mut bytes = std::collections::BTreeSet::new();
        for p in 0..r.npix {
            for g in 0..r.groups() {
                let base = p * x.pixel + g * x.group;
                for k in 0..r.group(g).1 {
                    match x.fmt {
                        Fmt::Elements(st) => bytes.extend((0..w).map(|b| base + k * st + b)),
                        Fmt::Planes(plane) => bytes.extend([base + k, base + plane + k]),
                    }
                }
            }
        }
        bytes
    }

    /// Streaming rows of two or more groups ask for exactly their own lines, shifted
    /// by the side's `ahead`: every byte of the row's groups lies in a run, and the runs
    /// hold no byte before the row's first or past its last. CastTess of F32 into
    /// 1x4x4x16 tiles (the dense side, 40 and 64 channels; the tiled side, one run per
    /// channel tile), BF16 byte-plane blocks of (4,4) tiles, and 1x4x4x8 tiles.
    #[test]
    fn ahead_runs_are_the_rows_own_bytes() {
        let side = |pixel, group, fmt| Side {
            pixel,
            group,
            fmt,
            ahead: 2048,
        };
        // A tile side's groups hold all their slots (`pad`), a dense side's its channels.
        let row = |npix, valid, slots, pad| Row {
            npix,
            valid,
            slots,
            pad,
        };
        let cases = [
            (side(256, 64, Fmt::Elements(4)), row(4, 64, 16, false), 4),
            (side(160, 64, Fmt::Elements(4)), row(4, 40, 16, false), 4),
            (side(64, 802_816, Fmt::Elements(4)), row(4, 64, 16, true), 4),
            (side(32, 512, Fmt::Planes(16)), row(4, 100, 16, true), 2),
            (side(16, 9_000, Fmt::Elements(2)), row(4, 40, 8, true), 2),
            (side(80, 16, Fmt::Elements(2)), row(8, 40, 8, false), 2),
        ];
        for (x, r, w) in cases {
            let a = Ahead::of(x, r, w);
            assert!(a.spans > 0, "{x:?} {r:?}");
            let want = row_bytes(x, r, w);
            let (first, last) = (*want.first().unwrap(), *want.last().unwrap());
            let mut got = std::collections::BTreeSet::new();
            for k in 0..a.spans {
                got.extend((0..a.len).map(|b| k * a.stride + b));
            }
            assert!(want.is_subset(&got), "{x:?} {r:?}: {a:?}");
            assert!(
                got.iter().all(|&b| (first..=last).contains(&b)),
                "{x:?} {r:?}: {a:?}"
            );
        }
    }

    /// No prefetch where the hardware follows the streams or the rule does not apply: a
    /// run that does not stream, pixels of fewer than `AHEAD_MIN_GROUPS` groups, strided
    /// channels, rows past `AHEAD_MAX_ROW` bytes, gaps between pixels, groups neither
    /// inside the pixel nor in planes past the row.
    #[test]
    fn ahead_asks_for_nothing_outside_its_rule() {
        let tiled = Side {
            pixel: 64,
            group: 1 << 20,
            fmt: Fmt::Elements(4),
            ahead: 2048,
        };
        let row = |npix, valid| Row {
            npix,
            valid,
            slots: 16,
            pad: true,
        };
        assert_ne!(Ahead::of(tiled, row(4, 48), 4), Ahead::NONE);
        let quiet = Side { ahead: 0, ..tiled };
        assert_eq!(Ahead::of(quiet, row(4, 48), 4), Ahead::NONE);
        assert_eq!(Ahead::of(tiled, row(4, 16), 4), Ahead::NONE);
        assert_ne!(Ahead::of(tiled, row(4, 17), 4), Ahead::NONE);
        let strided = Side {
            fmt: Fmt::Elements(8),
            ..tiled
        };
        assert_eq!(Ahead::of(strided, row(4, 48), 4), Ahead::NONE);
        // 3 groups of 32 pixels of 64 bytes: 6 KiB; of 64 pixels: 12 KiB, too long.
        assert_ne!(Ahead::of(tiled, row(32, 48), 4), Ahead::NONE);
        assert_eq!(Ahead::of(tiled, row(64, 48), 4), Ahead::NONE);
        // Pixels with gaps between them (a strided view): the row is not dense.
        let gappy = Side {
            pixel: 1024,
            group: 64,
            ..tiled
        };
        assert_eq!(Ahead::of(gappy, row(4, 48), 4), Ahead::NONE);
        assert_ne!(
            Ahead::of(
                Side {
                    pixel: 192,
                    ..gappy
                },
                row(4, 48),
                4
            ),
            Ahead::NONE
        );
        // Planes closer than a row's pixels (they would overlap the next group's).
        let close = Side {
            group: 128,
            ..tiled
        };
        assert_eq!(Ahead::of(close, row(4, 48), 4), Ahead::NONE);
    }

    /// A streaming run writes the same bytes as one that does not (the prefetches are
    /// hints): CastTess-shaped grids of F32 into BF16 byte-plane tiles and back, on every
    /// path this CPU has.
    #[test]
    fn streaming_grids_convert_as_the_others() {
        use crate::tensor::convert::EBF16;
        let (npix, valid, slots, tiles) = (4usize, 40usize, 16usize, 3usize);
        let groups = valid.div_ceil(slots);
        let plane_group = tiles * 4 * npix * 2 * slots;
        let tiled = Side {
            pixel: 2 * slots,
            group: plane_group,
            fmt: Fmt::Planes(slots),
            ahead: 0,
        };
        let dense = Side {
            pixel: 4 * valid,
            group: 4 * slots,
            fmt: Fmt::Elements(4),
            ahead: 0,
        };
        let row = Row {
            npix,
            valid,
            slots,
            pad: true,
        };
        // A tile row: `tiles` W tiles of 4 rows of `npix` pixels; the source image is
        // 4 rows of `tiles * npix` pixels.
        let (pixel_row, tile_row) = (npix * 4 * valid, npix * 2 * slots);
        let grid = [
            (1, 0, 0),
            (tiles, pixel_row, 4 * tile_row),
            (4, tiles * pixel_row, tile_row),
        ];
        let src: Vec<u8> = (0..4 * tiles * pixel_row)
            .map(|i| (i * 37 % 251) as u8)
            .collect();
        let out_len = groups * plane_group;
        let streaming = |x: Side| Side { ahead: 512, ..x };
        for path in ConvertPath::ALL.into_iter().filter(|p| p.is_available()) {
            let mut want = vec![0u8; out_len];
            convert_grid::<EF32, EBF16>(path, &src, dense, &mut want, tiled, row, grid);
            let mut got = vec![0u8; out_len];
            convert_grid::<EF32, EBF16>(
                path,
                &src,
                streaming(dense),
                &mut got,
                streaming(tiled),
                row,
                grid,
            );
            assert_eq!(got, want, "{path:?}");
            let back_grid = grid.map(|(n, s, d)| (n, d, s));
            let mut a = vec![0u8; src.len()];
            let mut b = vec![0u8; src.len()];
            convert_grid::<EBF16, EF32>(
                path,
                &want,
                tiled,
                &mut a,
                dense,
                Row { pad: false, ..row },
                back_grid,
            );
            convert_grid::<EBF16, EF32>(
                path,
                &want,
                streaming(tiled),
                &mut b,
                streaming(dense),
                Row { pad: false, ..row },
                back_grid,
            );
            assert_eq!(a, b, "{path:?}");
        }
    }

    /// `zero_grid` (the vector path where the CPU has it) and its portable loops zero
    /// exactly the pieces `a * steps[0] + b * steps[1] .. + len` and nothing else.
    #[test]
    fn zero_grid_zeroes_exactly_its_pieces_on_both_paths() {
        for (counts, steps, len) in [
            ([3, 4], [512, 96], 70),
            ([1, 1], [0, 0], 96),
            ([5, 1], [200, 0], 1),
            ([2, 3], [300, 64], 64),
            ([0, 3], [300, 64], 64),
        ]
        .into_iter()
        // Every length of the in-line stores and the first past them.
        .chain((0..=130).map(|len| ([3, 2], [600, 150], len)))
        {
            let mut want = vec![0xAAu8; 2048];
            for a in 0..counts[0] {
                for b in 0..counts[1] {
                    let o = a * steps[0] + b * steps[1];
                    want[o..o + len].fill(0);
                }
            }
            for portable in [false, true] {
                let mut got = vec![0xAAu8; 2048];
                // SAFETY: every piece lies inside `got` (the last one ends at byte 1480).
                unsafe {
                    if portable {
                        zero_grid_portable(got.as_mut_ptr(), counts, steps, len)
                    } else {
                        zero_grid(got.as_mut_ptr(), counts, steps, len)
                    }
                }
                assert_eq!(got, want, "{counts:?} {steps:?} {len} portable={portable}");
            }
        }
    }
}
