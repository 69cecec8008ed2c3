//! The oracle the conversion tests share: each logical element converted as `half`
//! converts it and written at the output spec's byte offsets (tiled padding zero,
//! strided gaps left as the sentinel), and `check_all_paths`, which runs a plan on every
//! path, thread count and tile loop against it.
#![allow(dead_code)]

use half::{bf16, f16};
use strideweave::tensor::convert::ConvertPath;
use strideweave::tensor::{
    prepare, AlignedBytes, DType, Op, Plan, RunOptions, TensorSpec, TileDispatch,
};

pub const SENTINEL: u8 = 0xA5;

pub fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

pub fn paths() -> Vec<ConvertPath> {
    ConvertPath::ALL
        .into_iter()
        .filter(|p| p.is_available())
        .collect()
}

/// Every logical coordinate of `ext`, row-major.
pub fn coords(ext: &[u64]) -> Vec<Vec<u64>> {
    let n: u64 = ext.iter().product();
    (0..n)
        .map(|mut i| {
            let mut c = vec![0; ext.len()];
            for ax in (0..ext.len()).rev() {
                c[ax] = i % ext[ax];
                i /= ext[ax];
            }
            c
        })
        .collect()
}

/// Calls `f(i, c)` for every logical coordinate `c` of `ext` (row-major number `i`),
/// reusing one coordinate buffer.
pub fn for_each_coord(ext: &[u64], mut f: impl FnMut(usize, &[u64])) {
    if ext.contains(&0) {
        return;
    }
    let mut c = vec![0u64; ext.len()];
    let mut i = 0;
    loop {
        f(i, &c);
        i += 1;
        let mut ax = ext.len();
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            c[ax] += 1;
            if c[ax] < ext[ax] {
                break;
            }
            c[ax] = 0;
        }
    }
}

/// The spec's address map as tables. A layout's offset is the sum of its top-level
/// modes' offsets, and the byte layout has one mode for the byte within the element and
/// one per logical axis; so byte `b` of the element at `c` is at
/// `bytes[b] + sum(axes[ax][c[ax]])`, every entry one `TensorSpec::byte_offset` call at
/// a coordinate with a single nonzero axis. (Per-element `byte_offset` calls rebuild
/// the layout each time: too slow under the sanitizer.)
pub struct Addresses {
    bytes: Vec<usize>,
    axes: Vec<Vec<usize>>,
}

impl Addresses {
    pub fn new(s: &TensorSpec) -> Addresses {
        let ext = s.dims.extents();
        if ext.contains(&0) {
            return Addresses {
                bytes: Vec::new(),
                axes: Vec::new(),
            };
        }
        let zero = vec![0u64; ext.len()];
        let at = |c: &[u64], b: u64| s.byte_offset(c, b).unwrap() as usize;
        let origin = at(&zero, 0);
        let bytes = (0..s.dtype.width()).map(|b| at(&zero, b)).collect();
        let axes = (0..ext.len())
            .map(|ax| {
                let mut c = zero.clone();
                (0..ext[ax])
                    .map(|x| {
                        c[ax] = x;
                        at(&c, 0) - origin
                    })
                    .collect()
            })
            .collect();
        Addresses { bytes, axes }
    }

    /// Byte offset of byte `b` of the element at `c`.
    pub fn at(&self, c: &[u64], b: u64) -> usize {
        c.iter()
            .zip(&self.axes)
            .fold(self.bytes[b as usize], |a, (&x, t)| a + t[x as usize])
    }

    /// The element's bits, least significant byte first.
    pub fn read_bits(&self, buf: &[u8], c: &[u64]) -> u32 {
        (0..self.bytes.len() as u64)
            .fold(0u32, |a, b| a | (u32::from(buf[self.at(c, b)]) << (8 * b)))
    }
}

/// `half`'s conversion of one element: equal dtypes copy bits, others go through F32.
pub fn convert(from: DType, to: DType, bits: u32) -> u32 {
    if from == to {
        return bits;
    }
    let x = match from {
        DType::F32 => f32::from_bits(bits),
        DType::F16 => f16::from_bits(bits as u16).to_f32(),
        _ => bf16::from_bits(bits as u16).to_f32(),
    };
    match to {
        DType::F32 => x.to_bits(),
        DType::F16 => u32::from(f16::from_f32(x).to_bits()),
        _ => u32::from(bf16::from_f32(x).to_bits()),
    }
}

/// The expected output buffer (span + 16 sentinel bytes) of converting `input`.
pub fn oracle(from: &TensorSpec, to: &TensorSpec, input: &[u8]) -> Vec<u8> {
    let span = to.required_bytes().unwrap() as usize;
    let fill = if to.placement.is_tiled() { 0 } else { SENTINEL };
    let mut out = vec![fill; span];
    out.extend([SENTINEL; 16]);
    let (src, dst) = (Addresses::new(from), Addresses::new(to));
    for_each_coord(from.dims.extents(), |_, c| {
        let bits = convert(from.dtype, to.dtype, src.read_bits(input, c));
        for b in 0..to.dtype.width() {
            out[dst.at(c, b)] = (bits >> (8 * b)) as u8;
        }
    });
    out
}

/// Input bytes: pseudo-random bit patterns (NaNs, infinities and subnormals included).
pub fn random_input(n: usize, seed: u64) -> AlignedBytes {
    let mut x = seed | 1;
    let bytes: Vec<u8> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    AlignedBytes::from_slice(&bytes)
}

pub fn run(plan: &Plan, input: &AlignedBytes, opts: RunOptions) -> AlignedBytes {
    let mut out = AlignedBytes::filled(plan.outputs()[0].bytes as usize + 16, SENTINEL);
    plan.run_with_options(&[input.as_slice()], &mut [out.as_mut_slice()], opts)
        .unwrap();
    out
}

/// The thread counts each case runs with: 1, 2, 3 and 5 (even and uneven splits, more
/// parts than cores), or the comma-separated list in `STRIDEWEAVE_ORACLE_THREADS`
/// (`.ci/sanitize` runs 1 and 3: a whole and an uneven split, half the runs under
/// AddressSanitizer).
pub fn thread_counts() -> Vec<usize> {
    match std::env::var("STRIDEWEAVE_ORACLE_THREADS") {
        Ok(list) => list
            .split(',')
            .map(|t| {
                t.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("STRIDEWEAVE_ORACLE_THREADS: {t:?} is not a count"))
            })
            .collect(),
        Err(_) => vec![1, 2, 3, 5],
    }
}

/// Runs `from -> to` on every path, thread count and tile loop; each must equal the oracle.
pub fn check_all_paths(from: &TensorSpec, to: &TensorSpec, seed: u64) {
    let plan = prepare(Op::conversion(from, to), &[*from], &[*to]).unwrap();
    let input = random_input(plan.inputs()[0].bytes as usize, seed);
    check_all_paths_on(from, to, &input)
}

/// [`check_all_paths`] on the given input bytes.
pub fn check_all_paths_on(from: &TensorSpec, to: &TensorSpec, input: &AlignedBytes) {
    let plan = prepare(Op::conversion(from, to), &[*from], &[*to]).unwrap();
    let want = oracle(from, to, input.as_slice());
    for path in paths() {
        for &threads in &thread_counts() {
            for tiles in [TileDispatch::Auto, TileDispatch::Runtime] {
                let opts = RunOptions::new()
                    .path(path)
                    .threads(threads)
                    .tile_dispatch(tiles);
                let got = run(&plan, input, opts);
                let got = got.as_slice();
                if got == want.as_slice() {
                    continue;
                }
                if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
                    panic!(
                        "{from} -> {to}: {path:?}, {threads} threads, {tiles:?}: byte {i} is {:#04x}, want {:#04x}",
                        got[i], want[i]
                    );
                }
            }
        }
    }
}
