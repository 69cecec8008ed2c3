//! The transpose path of the conversion routine: one side with strided channels but
//! dense pixels (NCHW data, or a strided view of it) against tiled pixels, both ways.
//! Every path (AVX-512, AVX2/F16C, portable), thread count and tile loop must give the
//! oracle's bytes (each logical element converted as `half` converts it, written at the
//! output spec's byte offsets; tiled padding zero; strided gaps untouched). Also the
//! neighbours the path must leave to the strided fallback: strided pixels as well as
//! strided channels.

mod kernel_oracle;

use kernel_oracle::*;
use proptest::prelude::*;
use strideweave::tensor::{prepare, Op, RunOptions};

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
            assert!(
                got.as_slice() == want.as_slice(),
                "{from} -> {to}: {threads} threads"
            );
        }
    }
}
