//! The transpose path of the conversion routine: one side with strided channels but
//! dense pixels (NCHW data, or a strided view of it) against tiled pixels, both ways.
//! Every path (AVX-512, AVX2/F16C, portable), thread count and tile loop must give the
//! oracle's bytes (each logical element converted as `half` converts it, written at the
//! output spec's byte offsets; tiled padding zero; strided gaps untouched). Also the
//! neighbours the path must leave to the strided fallback: strided pixels as well as
//! strided channels.

use half::{bf16, f16};
use proptest::prelude::*;
use strideweave::tensor::convert::ConvertPath;
use strideweave::tensor::{
    prepare, AlignedBytes, DType, Op, Placement, Plan, RunOptions, TensorSpec, TileDispatch,
};

const SENTINEL: u8 = 0xA5;

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn paths() -> Vec<ConvertPath> {
    ConvertPath::ALL
        .into_iter()
        .filter(|p| p.is_available())
        .collect()
}

/// Every logical coordinate of `ext`, row-major.
fn coords(ext: &[u64]) -> Vec<Vec<u64>> {
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

/// Byte `b` of the element at `c` (row-major number `i`): the spec's own address map
/// (the contiguous case written out, for speed).
fn offset(s: &TensorSpec, c: &[u64], i: usize, b: u64) -> usize {
    if s.placement == Placement::Contiguous {
        i * s.dtype.width() as usize + b as usize
    } else {
        s.byte_offset(c, b).unwrap() as usize
    }
}

fn read_bits(s: &TensorSpec, buf: &[u8], c: &[u64], i: usize) -> u32 {
    (0..s.dtype.width()).fold(0u32, |a, b| {
        a | (u32::from(buf[offset(s, c, i, b)]) << (8 * b))
    })
}

/// `half`'s conversion of one element: equal dtypes copy bits, others go through F32.
fn convert(from: DType, to: DType, bits: u32) -> u32 {
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
fn oracle(from: &TensorSpec, to: &TensorSpec, input: &[u8]) -> Vec<u8> {
    let span = to.required_bytes().unwrap() as usize;
    let fill = if to.placement.is_tiled() { 0 } else { SENTINEL };
    let mut out = vec![fill; span];
    out.extend([SENTINEL; 16]);
    for (i, c) in coords(from.dims.extents()).iter().enumerate() {
        let bits = convert(from.dtype, to.dtype, read_bits(from, input, c, i));
        for b in 0..to.dtype.width() {
            out[offset(to, c, i, b)] = (bits >> (8 * b)) as u8;
        }
    }
    out
}

/// Input bytes: pseudo-random bit patterns (NaNs, infinities and subnormals included).
fn random_input(n: usize, seed: u64) -> AlignedBytes {
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

fn run(plan: &Plan, input: &AlignedBytes, opts: RunOptions) -> Vec<u8> {
    let mut out = AlignedBytes::filled(plan.outputs()[0].bytes as usize + 16, SENTINEL);
    plan.run_with_options(&[input.as_slice()], &mut [out.as_mut_slice()], opts)
        .unwrap();
    out.as_slice().to_vec()
}

/// Runs `from -> to` on every path, thread count and tile loop; each must equal the oracle.
fn check_all_paths(from: &TensorSpec, to: &TensorSpec, seed: u64) {
    let plan = prepare(Op::conversion(from, to), &[*from], &[*to]).unwrap();
    let input = random_input(plan.inputs()[0].bytes as usize, seed);
    let want = oracle(from, to, input.as_slice());
    for path in paths() {
        for threads in [1, 2, 3, 5] {
            for tiles in [TileDispatch::Auto, TileDispatch::Runtime] {
                let opts = RunOptions::new()
                    .path(path)
                    .threads(threads)
                    .tile_dispatch(tiles);
                let got = run(&plan, &input, opts);
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

const DTYPES: [&str; 3] = ["f32", "f16", "bf16"];

fn width(dtype: &str) -> u64 {
    if dtype == "f32" {
        4
    } else {
        2
    }
}

/// Both directions for every dtype pair `(a, b)`: `a` flat -> `b` tiled and `a` tiled
/// -> `b` flat.
fn both_ways(
    dims: &str,
    flat: impl Fn(&str) -> String,
    tiled: &str,
    pair: (usize, usize),
    seed: u64,
) {
    let (a, b) = (DTYPES[pair.0], DTYPES[pair.1]);
    check_all_paths(
        &spec(&format!("{a}[{dims}] {}", flat(a))),
        &spec(&format!("{b}[{dims}] {tiled}")),
        seed,
    );
    check_all_paths(
        &spec(&format!("{a}[{dims}] {tiled}")),
        &spec(&format!("{b}[{dims}] {}", flat(b))),
        seed ^ 1,
    );
}

/// Byte strides of a `[N, H, W, C]` tensor stored channel-major (NCHW memory), with
/// `pad_c` extra elements after each channel plane and `pad_w` extra elements between
/// pixels (0: consecutive pixels).
fn nchw_strides(n: [u64; 4], w: u64, pad_c: u64, pad_w: u64) -> String {
    let sw = w * (1 + pad_w);
    let sh = sw * n[2];
    let sc = sh * n[1] + pad_c * w;
    let sn = sc * n[3];
    format!("strided({sn},{sh},{sw},{sc})")
}

/// Tile widths: those that divide a 16-pixel chunk, those that do not (a chunk is then
/// the whole tiles that fit), and tiles wider than a chunk (chunks inside one tile).
fn tile_w() -> impl Strategy<Value = u64> {
    prop::sample::select(vec![1u64, 2, 3, 4, 5, 7, 8, 16, 17, 20])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// NCHW data into `.CHW` tiles and back: channel counts 1 to 40 (partial and
    /// several channel groups), 8-, 16- and 32-slot tiles, partial W and H tiles, rows
    /// long enough for several 16-pixel chunks across W tiles (and tiles wider than a
    /// chunk), every dtype pair (equal
    /// dtypes too), BF16 byte planes, contiguous and padded (channel stride above the
    /// plane) flat sides.
    #[test]
    fn nchw_into_chw_tiles_matches_the_oracle_on_every_path(
        outer in 1u64..3,
        c in 1u64..41,
        h in 1u64..7,
        w in 1u64..40,
        tile in (1u64..5, tile_w(), prop::sample::select(vec![8u64, 16, 32])),
        pair in (0usize..3, 0usize..3),
        padded in any::<bool>(),
        pad in (0u64..3, 0u64..3, 0u64..3),
        seed in any::<u64>(),
    ) {
        let dims = format!("{outer},{c},{h},{w}");
        let tiled = format!(
            "mla-tiled(roles=.CHW, tile=(1,{},{},{}), align=64)",
            tile.0, tile.1, tile.2
        );
        let flat = |dt: &str| {
            if !padded {
                return "contiguous".to_string();
            }
            // Pixels stay consecutive; H rows and channel planes get gaps.
            let wd = width(dt);
            let sh = wd * (w + pad.0);
            let sc = sh * h + pad.1 * wd;
            let sn = sc * c + pad.2 * wd;
            format!("strided({sn},{sc},{sh},{wd})")
        };
        both_ways(&dims, flat, &tiled, pair, seed);
    }

    /// A 2-D tensor with roles `CW` (channels slowest, pixels consecutive): one row of
    /// W tiles per channel-tile row, pixel runs continuing across the W tiles.
    #[test]
    fn channel_major_2d_matches_the_oracle_on_every_path(
        c in 1u64..41,
        w in 1u64..70,
        tile in (tile_w(), prop::sample::select(vec![8u64, 16, 32])),
        pair in (0usize..3, 0usize..3),
        seed in any::<u64>(),
    ) {
        let tiled = format!("mla-tiled(roles=CW, tile=(1,1,{},{}), align=64)", tile.0, tile.1);
        both_ways(&format!("{c},{w}"), |_| "contiguous".to_string(), &tiled, pair, seed);
    }

    /// NHWC logical tensors stored channel-major (a strided view of NCHW memory) into
    /// `.HWC` tiles and `mla-cblocked`, both ways; with `pad_w > 0` the pixels are not
    /// consecutive either, which the strided fallback converts.
    #[test]
    fn channel_major_strided_views_match_the_oracle_on_every_path(
        outer in 1u64..3,
        h in 1u64..7,
        w in 1u64..30,
        c in 1u64..41,
        tile in (1u64..5, tile_w(), prop::sample::select(vec![8u64, 16, 32])),
        cblocked in any::<bool>(),
        pair in (0usize..3, 0usize..3),
        pad in (0u64..3, prop::sample::select(vec![0u64, 0, 1])),
        seed in any::<u64>(),
    ) {
        let dims = format!("{outer},{h},{w},{c}");
        let tiled = if cblocked {
            format!("mla-cblocked(tile=({},{}), align=32)", tile.0, tile.1)
        } else {
            format!(
                "mla-tiled(roles=.HWC, tile=(1,{},{},{}), align=64)",
                tile.0, tile.1, tile.2
            )
        };
        let flat = |dt: &str| nchw_strides([outer, h, w, c], width(dt), pad.0, pad.1);
        both_ways(&dims, flat, &tiled, pair, seed);
    }

    /// Channels a stride apart that is not the element width: a small one (every
    /// other slot, as `strided(.., 320, 4)` for BF16, pixels interleaved: the strided
    /// fallback) or planes `gap` times the pixel plane (pixels consecutive: the
    /// transpose path). Both match the oracle.
    #[test]
    fn channel_stride_other_than_the_width_matches_the_oracle_on_every_path(
        h in 1u64..6,
        w in 1u64..30,
        c in 1u64..41,
        gap in 2u64..4,
        dense_pixels in any::<bool>(),
        tile in (1u64..5, tile_w(), prop::sample::select(vec![8u64, 16, 32])),
        pair in (0usize..3, 0usize..3),
        seed in any::<u64>(),
    ) {
        // Logical [1, H, W, C] with roles .HWC.
        let dims = format!("1,{h},{w},{c}");
        let tiled = format!(
            "mla-tiled(roles=.HWC, tile=(1,{},{},{}), align=64)",
            tile.0, tile.1, tile.2
        );
        let flat = |dt: &str| {
            let wd = width(dt);
            if dense_pixels {
                // Consecutive pixels leave no room for a small channel stride: channel
                // planes of `gap * H * W` elements instead.
                let sw = wd;
                let sh = sw * w;
                let sc = sh * h * gap;
                format!("strided({},{sh},{sw},{sc})", sc * c)
            } else {
                let sc = wd * gap;
                let sw = sc * c;
                let sh = sw * w;
                format!("strided({},{sh},{sw},{sc})", sh * h)
            }
        };
        both_ways(&dims, flat, &tiled, pair, seed);
    }
}

/// The shapes of the measured cliff, each dtype pair, both directions.
#[test]
fn measured_nchw_shapes_match_the_oracle_on_every_path() {
    for (dims, tiled) in [
        (
            "1,40,17,23",
            "mla-tiled(roles=.CHW, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,3,31,29",
            "mla-tiled(roles=.CHW, tile=(1,4,4,16), align=64)",
        ),
        ("33,301", "mla-tiled(roles=CW, tile=(1,1,4,16), align=64)"),
        (
            "2,64,9,28",
            "mla-tiled(roles=.CHW, tile=(1,8,8,32), align=64)",
        ),
    ] {
        for a in 0..3 {
            for b in 0..3 {
                both_ways(dims, |_| "contiguous".to_string(), tiled, (a, b), 5);
            }
        }
    }
}

/// Above the automatic threshold (several threads), the transpose path's bytes do not
/// depend on the thread count.
#[test]
fn large_nchw_tensors_give_identical_bytes_for_every_thread_count() {
    for (from, to) in [
        (
            "f32[2,40,130,70]",
            "bf16[2,40,130,70] mla-tiled(roles=.CHW, tile=(1,4,4,16), align=64)",
        ),
        (
            "bf16[2,40,130,70] mla-tiled(roles=.CHW, tile=(1,8,8,32), align=64)",
            "f32[2,40,130,70]",
        ),
    ] {
        let (from, to) = (spec(from), spec(to));
        let plan = prepare(Op::conversion(&from, &to), &[from], &[to]).unwrap();
        let input = random_input(plan.inputs()[0].bytes as usize, 3);
        let want = oracle(&from, &to, input.as_slice());
        for threads in [1, 0, 2, 4, 7] {
            let got = run(&plan, &input, RunOptions::new().threads(threads));
            assert!(got == want, "{from} -> {to}: {threads} threads");
        }
    }
}
