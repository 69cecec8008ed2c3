//! Every conversion path (AVX-512, AVX2/F16C, portable) and every thread count gives the
//! same bytes, and those bytes are the placement contract: each logical element converted
//! as `half` converts it, written at the byte offsets of the output spec; tiled padding
//! and alignment gaps zero; strided gaps untouched. Checked on random specs (all dtype
//! pairs; contiguous, strided, MlaTiled and MlaCBlocked on either side; partial tiles,
//! odd channel counts, outer axes) and exhaustively on every 16-bit input.

mod kernel_oracle;

use kernel_oracle::*;
use proptest::prelude::*;
use strideweave::tensor::convert::ConvertPath;
use strideweave::tensor::{prepare, AlignedBytes, Op, RunOptions};

const DTYPES: [&str; 3] = ["f32", "f16", "bf16"];

/// A random placement text for `dims` (rank 3 or 4) and `width`-byte elements.
/// Bytes per element of the dtype named `dt` ("f32", "f16", "bf16").
fn width(dt: &str) -> u64 {
    spec(&format!("{dt}[1]")).dtype.width()
}

fn placement(dims: &[u64], width: u64, kind: u8, tile: [u64; 4], pad: [u64; 4]) -> String {
    let r = dims.len();
    match kind {
        0 => "contiguous".to_string(),
        1 => {
            // Padded row-major strides (each axis at least covers the faster ones).
            let mut st = vec![0i64; r];
            let mut acc = width;
            for ax in (0..r).rev() {
                acc += pad[ax % 4] * width;
                st[ax] = acc as i64;
                acc *= dims[ax];
            }
            let s: Vec<String> = st.iter().map(i64::to_string).collect();
            format!("strided({})", s.join(","))
        }
        2 => {
            let roles = if r == 4 { ".HWC" } else { "HWC" };
            format!(
                "mla-tiled(roles={roles}, tile=(1,{},{},{}), align={})",
                tile[1],
                tile[2],
                tile[3],
                1 << (tile[0] % 8)
            )
        }
        3 => {
            // Roles in another order: channels not innermost in the logical tensor.
            let roles = if r == 4 { "CH.W" } else { "WCH" };
            format!(
                "mla-tiled(roles={roles}, tile=(1,{},{},{}), align=4)",
                tile[1], tile[2], tile[3]
            )
        }
        _ => format!(
            "mla-cblocked(tile=({},{}), align={})",
            tile[1],
            tile[2],
            1 << (tile[0] % 9)
        ),
    }
}

/// `[outer, h, w, c]` of dtype pair `pair` into the tiled placement `kind` (2: MlaTiled,
/// 4: MlaCBlocked) from the flat placement `flat_kind`, and back out of it into the
/// flat one (seed ^ 1), each against the oracle on every path and thread count.
fn check_tiled_both_ways(
    dims: &[u64],
    pair: (usize, usize),
    (kind, flat_kind): (u8, u8),
    tile: [u64; 4],
    pad: [u64; 4],
    seed: u64,
) {
    let list: Vec<String> = dims.iter().map(u64::to_string).collect();
    let d = list.join(",");
    let (a, b) = (DTYPES[pair.0], DTYPES[pair.1]);
    let (wa, wb) = (width(a), width(b));
    let flat = spec(&format!(
        "{a}[{d}] {}",
        placement(dims, wa, flat_kind, tile, pad)
    ));
    let tiled = spec(&format!("{b}[{d}] {}", placement(dims, 0, kind, tile, pad)));
    check_all_paths(&flat, &tiled, seed);
    let tiled_in = spec(&format!("{a}[{d}] {}", placement(dims, 0, kind, tile, pad)));
    let flat_out = spec(&format!(
        "{b}[{d}] {}",
        placement(dims, wb, flat_kind, tile, pad)
    ));
    check_all_paths(&tiled_in, &flat_out, seed ^ 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// CastTess and CastUntess: every path and thread count gives the oracle's bytes.
    #[test]
    fn tess_and_untess_match_the_oracle_on_every_path_and_thread_count(
        outer in 1u64..3,
        h in 1u64..10,
        w in 1u64..10,
        c in prop::sample::select(vec![1u64, 3, 8, 16, 17, 33, 40]),
        rank4 in any::<bool>(),
        pair in (0usize..3, 0usize..3),
        tiled_kind in 2u8..5,
        flat_kind in 0u8..2,
        tile in (0u64..8, 1u64..6, 1u64..6, prop::sample::select(vec![1u64, 2, 3, 4, 8, 16, 32])),
        pad in (0u64..3, 0u64..3, 0u64..3, 0u64..3),
        seed in any::<u64>(),
    ) {
        let dims: Vec<u64> = if rank4 { vec![outer, h, w, c] } else { vec![h, w, c] };
        let list: Vec<String> = dims.iter().map(u64::to_string).collect();
        let d = list.join(",");
        let (a, b) = (DTYPES[pair.0], DTYPES[pair.1]);
        let tile = [tile.0, tile.1, tile.2, tile.3];
        let pad = [pad.0, pad.1, pad.2, pad.3];
        let wa = width(a);
        let flat = spec(&format!("{a}[{d}] {}", placement(&dims, wa, flat_kind, tile, pad)));
        let tiled = spec(&format!("{b}[{d}] {}", placement(&dims, 0, tiled_kind, tile, pad)));
        check_all_paths(&flat, &tiled, seed);
        let tiled_in = spec(&format!("{a}[{d}] {}", placement(&dims, 0, tiled_kind, tile, pad)));
        let wb = width(b);
        let flat_out = spec(&format!("{b}[{d}] {}", placement(&dims, wb, flat_kind, tile, pad)));
        check_all_paths(&tiled_in, &flat_out, seed ^ 1);
    }

    /// Cast between contiguous and strided views: every path and thread count.
    #[test]
    fn cast_matches_the_oracle_on_every_path_and_thread_count(
        dims in prop::collection::vec(1u64..12, 1..4),
        pair in (0usize..3, 0usize..3),
        kinds in (0u8..2, 0u8..2),
        pad in (0u64..3, 0u64..3, 0u64..3, 0u64..3),
        seed in any::<u64>(),
    ) {
        let list: Vec<String> = dims.iter().map(u64::to_string).collect();
        let d = list.join(",");
        let (a, b) = (DTYPES[pair.0], DTYPES[pair.1]);
        let pad = [pad.0, pad.1, pad.2, pad.3];
        let (wa, wb) = (width(a), width(b));
        let from = spec(&format!("{a}[{d}] {}", placement(&dims, wa, kinds.0, [0; 4], pad)));
        let to = spec(&format!("{b}[{d}] {}", placement(&dims, wb, kinds.1, [0; 4], pad)));
        check_all_paths(&from, &to, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Few-channel pixels (an RGB image, C = 1 or 8): the vector paths that convert
    /// several pixels per vector (one load, lane permutations, one store for `q` pixels,
    /// BF16 byte planes by shuffles) in each of their instances (each side's lanes in
    /// place, permuted, byte planes, or byte planes permuted by one `vpermb`) and the
    /// planned partial groups. Every C from 1 to
    /// 17, channel tiles of 8, 16 and 32 slots, partial W and H tiles (a remainder of
    /// pixels per row), contiguous and padded-stride flat sides (pixels apart), every
    /// dtype pair, both directions, every path and thread count.
    #[test]
    fn few_channel_pixels_match_the_oracle_on_every_path(
        outer in 1u64..3,
        h in 1u64..7,
        w in 1u64..12,
        c in 1u64..18,
        tile in (0u64..8, 1u64..4, 1u64..9, prop::sample::select(vec![8u64, 16, 32])),
        pair in (0usize..3, 0usize..3),
        cblocked in any::<bool>(),
        flat_kind in 0u8..2,
        pad in (0u64..3, 0u64..3, 0u64..3, 0u64..3),
        seed in any::<u64>(),
    ) {
        let tile = [tile.0, tile.1, tile.2, tile.3];
        let pad = [pad.0, pad.1, pad.2, pad.3];
        let kind = if cblocked { 4 } else { 2 };
        check_tiled_both_ways(&[outer, h, w, c], pair, (kind, flat_kind), tile, pad, seed);
    }
}

/// 24 cases of the many-channel property unless `STRIDEWEAVE_PROPTEST_CASES` says more.
fn many_channel_cases() -> u32 {
    std::env::var("STRIDEWEAVE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(many_channel_cases()))]

    /// MlaTiled and MlaCBlocked storage with many channels: the walks that only such
    /// tensors reach (group by group in pieces, over the whole grid or split by tile
    /// rows, a cache line's worth of groups per row, two 16-bit tile pixels per vector,
    /// edge pixels zeroed over all channel tiles). Channel counts around powers of two
    /// up to 1024, channel tiles of 8 to 64 slots, tiles 1 to 8 pixels a side (so channel
    /// tiles lie a power of two of bytes apart, or not), partial tiles, both directions,
    /// every dtype pair, path and thread count, against the oracle.
    #[test]
    fn many_channel_tensors_match_the_oracle_on_every_path(
        outer in 1u64..3,
        h in 1u64..10,
        w in 1u64..10,
        c in prop::sample::select(vec![48u64, 64, 100, 128, 255, 256, 257, 512, 1000, 1024]),
        tile in (
            0u64..8,
            prop::sample::select(vec![1u64, 2, 4, 8]),
            prop::sample::select(vec![1u64, 2, 4, 8]),
            prop::sample::select(vec![8u64, 16, 32, 64]),
        ),
        pair in (0usize..3, 0usize..3),
        cblocked in any::<bool>(),
        flat_kind in 0u8..2,
        pad in (0u64..3, 0u64..3, 0u64..3, 0u64..3),
        seed in any::<u64>(),
    ) {
        // At most about 40K elements, so every path and thread count stays quick.
        let h = h.min((40_000 / (outer * w * c)).max(1));
        let tile = [tile.0, tile.1, tile.2, tile.3];
        let pad = [pad.0, pad.1, pad.2, pad.3];
        let kind = if cblocked { 4 } else { 2 };
        check_tiled_both_ways(&[outer, h, w, c], pair, (kind, flat_kind), tile, pad, seed);
    }
}

/// Every `(from, to)` pair of F32, F16 and BF16, equal ones included.
fn every_pair() -> Vec<(&'static str, &'static str)> {
    let dtypes = ["f32", "f16", "bf16"];
    dtypes
        .iter()
        .flat_map(|&a| dtypes.iter().map(move |&b| (a, b)))
        .collect()
}

/// Every `(dims, tiled placement)` case with every `(from, to)` dtype pair: contiguous
/// into the placement (CastTess) and, with `both`, back out of it (CastUntess, seed + 1),
/// each against the oracle on every path and thread count.
fn check_cases(cases: &[(&str, &str)], pairs: &[(&str, &str)], seed: u64, both: bool) {
    for (d, p) in cases {
        for (a, b) in pairs {
            check_all_paths(
                &spec(&format!("{a}[{d}]")),
                &spec(&format!("{b}[{d}] {p}")),
                seed,
            );
            if both {
                check_all_paths(
                    &spec(&format!("{a}[{d}] {p}")),
                    &spec(&format!("{b}[{d}]")),
                    seed + 1,
                );
            }
        }
    }
}

/// The awkward shapes, each placement, each dtype pair, both directions.
#[test]
fn awkward_shapes_match_the_oracle_on_every_path() {
    let shapes = ["1,9,7,40", "2,5,3,257", "1,6,11,3", "1,3,3,100", "3,2,5,1"];
    let placements = [
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        "mla-cblocked(tile=(4,4), align=64)",
    ];
    for d in shapes {
        for p in placements {
            for a in DTYPES {
                for b in DTYPES {
                    check_all_paths(
                        &spec(&format!("{a}[{d}]")),
                        &spec(&format!("{b}[{d}] {p}")),
                        7,
                    );
                    check_all_paths(
                        &spec(&format!("{a}[{d}] {p}")),
                        &spec(&format!("{b}[{d}]")),
                        9,
                    );
                }
            }
        }
    }
}

/// Friendly shapes: channel counts that fill whole 16- and 32-slot channel tiles, so every
/// vector path takes its whole-block fast path (and partial spatial tiles around it).
#[test]
fn whole_channel_tiles_match_the_oracle_on_every_path() {
    let shapes = ["1,8,8,64", "1,5,9,32", "2,4,7,96"];
    let placements = [
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        "mla-cblocked(tile=(4,4), align=64)",
    ];
    for d in shapes {
        for p in placements {
            for a in DTYPES {
                for b in DTYPES {
                    check_all_paths(
                        &spec(&format!("{a}[{d}]")),
                        &spec(&format!("{b}[{d}] {p}")),
                        11,
                    );
                    check_all_paths(
                        &spec(&format!("{a}[{d}] {p}")),
                        &spec(&format!("{b}[{d}]")),
                        13,
                    );
                }
            }
        }
    }
}

/// Cast admission's conversion rule (bit-exact with `half`; NaN stays NaN; F16<->BF16
/// through F32 exactly, rounded once): all 65,536 F16 and BF16 bit patterns through every
/// 16-bit conversion, contiguous and in BF16 byte planes, on every path. Every NaN
/// payload, signaling and quiet, so also BF16 -> F16 without the widening's quiet bit
/// (the F16 narrowing sets it).
#[test]
fn every_16_bit_input_matches_half_on_every_path() {
    let bits: Vec<u8> = (0..=u16::MAX).flat_map(|b| b.to_le_bytes()).collect();
    let input = AlignedBytes::from_slice(&bits);
    let plain = |t: &str| format!("{t}[1,256,256]");
    let tiled = |t: &str| format!("{t}[1,256,256] mla-tiled(roles=.WC, tile=(1,1,4,16), align=2)");
    for a in ["f16", "bf16"] {
        for b in DTYPES {
            // Byte planes (BF16 tiles) both ways: into a tiled output (BF16 planes or
            // out of BF16), and out of a tiled BF16 input (its 16-slot pixels of byte
            // planes; the tiles hold every bit pattern once, no padding).
            let mut cases = vec![(plain(a), plain(b))];
            if b == "bf16" || a == "bf16" {
                cases.push((plain(a), tiled(b)));
            }
            if a == "bf16" {
                cases.push((tiled(a), plain(b)));
            }
            for (from, to) in cases {
                let (from, to) = (spec(&from), spec(&to));
                let plan = prepare(Op::conversion(&from, &to), &[from], &[to]).unwrap();
                let want = oracle(&from, &to, input.as_slice());
                for path in paths() {
                    let got = run(&plan, &input, RunOptions::new().path(path).threads(1));
                    assert!(
                        got.as_slice() == want.as_slice(),
                        "{from} -> {to} on {path:?}"
                    );
                }
            }
        }
    }
}

/// Cast admission's conversion rule in 32-lane vectors (F16 <-> BF16 as two halves at
/// once): all 65,536 F16 and BF16 bit patterns through the few-channel packed chunks (12
/// channels, two 16-slot tile pixels a chunk) and whole 32-slot groups (1x1x2x32 tiles,
/// BF16 byte planes of 32 slots), into and out of the tiles, on every path and thread
/// count. (The contiguous runs and 16-slot pixel pairs are the test above.)
#[test]
fn sixteen_bit_conversions_in_32_lane_vectors_match_half_for_every_input() {
    let shapes = [
        ("[1,5462,12]", "tile=(1,1,4,16)"),
        ("[1,256,256]", "tile=(1,1,2,32)"),
    ];
    for (dims, tile) in shapes {
        for (a, b) in [("f16", "bf16"), ("bf16", "f16")] {
            let plain = |t: &str| spec(&format!("{t}{dims}"));
            let tiled = |t: &str| spec(&format!("{t}{dims} mla-tiled(roles=.WC, {tile}, align=2)"));
            // Every bit pattern in turn (65,544 or 65,536 elements).
            let n = plain(a).required_bytes().unwrap() as usize / 2;
            let bits: Vec<u8> = (0..n).flat_map(|i| (i as u16).to_le_bytes()).collect();
            let input = AlignedBytes::from_slice(&bits);
            check_all_paths_on(&plain(a), &tiled(b), &input);
            // The same patterns in tiles of `a` (a copy packs them), then out of them.
            let pack = prepare(Op::CastTess, &[plain(a)], &[tiled(a)]).unwrap();
            let packed = run(&pack, &input, RunOptions::new().threads(1));
            let packed = &packed.as_slice()[..pack.outputs()[0].bytes as usize];
            check_all_paths_on(&tiled(a), &plain(b), &AlignedBytes::from_slice(packed));
        }
    }
}

/// Results never depend on the thread count, also above the automatic threshold.
#[test]
fn large_tensors_give_identical_bytes_for_every_thread_count() {
    for (from, to) in [
        (
            "f32[2,130,70,40]",
            "bf16[2,130,70,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "f32[2,130,70,40]",
            "f16[2,130,70,40] mla-cblocked(tile=(4,4), align=64)",
        ),
        (
            "bf16[2,130,70,40] mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
            "f32[2,130,70,40]",
        ),
        ("f32[2,130,70,40]", "bf16[2,130,70,40]"),
        // More chunks than threads (an 8-long split axis; 65 H tiles).
        ("f32[8,64,70,40]", "f16[8,64,70,40]"),
        (
            "f16[1,260,70,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
            "f32[1,260,70,40]",
        ),
        (
            "f32[1,260,70,3]",
            "bf16[1,260,70,3] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
    ] {
        let (from, to) = (spec(from), spec(to));
        let plan = prepare(Op::conversion(&from, &to), &[from], &[to]).unwrap();
        let input = random_input(plan.inputs()[0].bytes as usize, 3);
        let single = run(&plan, &input, RunOptions::new().threads(1));
        for threads in [0, 2, 4, 7] {
            assert!(
                run(&plan, &input, RunOptions::new().threads(threads)).as_slice()
                    == single.as_slice(),
                "{from} -> {to}: {threads} threads"
            );
        }
    }
}

/// Forcing a path this CPU lacks is an error before any write.
#[test]
fn an_unavailable_path_is_rejected_before_writing() {
    let plan = prepare(Op::Cast, &[spec("f32[4]")], &[spec("bf16[4]")]).unwrap();
    let input = AlignedBytes::zeroed(16);
    for path in ConvertPath::ALL.into_iter().filter(|p| !p.is_available()) {
        let mut out = AlignedBytes::filled(8, 3);
        let e = plan
            .run_with_options(
                &[input.as_slice()],
                &mut [out.as_mut_slice()],
                RunOptions::new().path(path),
            )
            .unwrap_err();
        assert!(e.to_string().contains("not available"), "{e}");
        assert!(out.as_slice().iter().all(|&b| b == 3));
    }
}

/// Cast between padded strided views of rank 1 to 6: the coalesced view's innermost axis
/// is a run, the next one its pixels, up to three more one grid, and the rest an outer
/// loop; every split of those levels gives the oracle's bytes on every path.
#[test]
fn strided_casts_of_every_rank_match_the_oracle() {
    let shapes: [&[u64]; 7] = [
        &[5],
        &[3, 7],
        &[2, 3, 17],
        &[2, 3, 4, 40],
        &[2, 2, 3, 4, 3],
        &[2, 1, 3, 2, 3, 9],
        &[3, 2, 2, 2, 2, 2],
    ];
    for (k, dims) in shapes.iter().enumerate() {
        let d: Vec<String> = dims.iter().map(u64::to_string).collect();
        let d = d.join(",");
        for (a, b) in [("f32", "bf16"), ("bf16", "f32"), ("f16", "f16")] {
            let (wa, wb) = (width(a), width(b));
            for (ka, kb, pad) in [
                (1, 0, [1, 0, 2, 1]),
                (0, 1, [0, 3, 1, 0]),
                (1, 1, [2, 1, 0, 3]),
            ] {
                let from = spec(&format!(
                    "{a}[{d}] {}",
                    placement(dims, wa, ka, [0; 4], pad)
                ));
                let to = spec(&format!(
                    "{b}[{d}] {}",
                    placement(dims, wb, kb, [0; 4], pad)
                ));
                check_all_paths(&from, &to, k as u64);
            }
        }
    }
}

/// Casts whose runs are long and not a multiple of 16 elements (converted as their whole
/// 16-element blocks, then the rest): a contiguous tensor of 89,900 elements, rows of
/// 2,051 elements with gaps between them (padded strided views), and the `[1,57,55,40]`
/// activation, every dtype pair, on every path and thread count. Spec requirement
/// (tensor storage, Cast): every logical element converted bit-exactly, gaps untouched.
#[test]
fn long_runs_of_ragged_length_match_the_oracle_on_every_path() {
    for (a, b) in every_pair() {
        for d in ["89900", "1,57,55,40", "2047"] {
            check_all_paths(&spec(&format!("{a}[{d}]")), &spec(&format!("{b}[{d}]")), 3);
        }
        let dims = [3, 2051];
        let (wa, wb) = (width(a), width(b));
        let from = spec(&format!(
            "{a}[3,2051] {}",
            placement(&dims, wa, 1, [0; 4], [5, 0, 0, 0])
        ));
        let to = spec(&format!(
            "{b}[3,2051] {}",
            placement(&dims, wb, 1, [0; 4], [9, 0, 0, 0])
        ));
        check_all_paths(&from, &to, 4);
    }
}

/// 16-bit copies into 16-slot tiles and blocks whose last channel group is partial (24,
/// 40, 100 channels: 8, 8 and 4 of its 16 slots), taken two tile pixels per 64-byte
/// store with that group's elements masked: rows of odd and even pixel counts, edge
/// tiles, on every path and thread count. Spec requirement (tensor storage, MlaTiled
/// and MlaCBlocked): channel padding written as zero, BF16 pixels as byte planes.
#[test]
fn sixteen_bit_copies_with_a_partial_last_group_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,5,6,24",
            "mla-tiled(roles=.HWC, tile=(1,2,3,16), align=32)",
        ),
        (
            "2,3,5,100",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("1,9,7,40", "mla-cblocked(tile=(4,4), align=64)"),
        ("1,7,5,24", "mla-cblocked(tile=(2,2), align=64)"),
    ];
    check_cases(&cases, &[("f16", "f16"), ("bf16", "bf16")], 21, false);
}

/// Every dtype pair, both directions, through 8-slot tiles (channels filling whole
/// groups and a partial last group: the two- and four-pixel vectors, the second pass),
/// 16-slot tiles and blocks and 32-slot tiles (whole 64-byte BF16 groups), with rows of
/// one, two, three and more pixels, on every path and thread count. The random
/// properties reach these only by chance: CastUntess of F32 8-slot tiles into F16 once
/// took four pixels per vector as if they were 16-bit, and only a CI seed found it.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): tiles visited C/D/H/W
/// holding D/H/W/C pixels, BF16 pixels as low bytes then high bytes, padding written as
/// zero and never read; conversions bit-exact in every direction.
#[test]
fn every_pair_through_8_16_and_32_slot_tiles_matches_the_oracle_on_every_path() {
    let cases = [
        (
            "1,3,5,16",
            "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=64)",
        ),
        ("2,3,7,48", "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=1)"),
        (
            "1,5,3,44",
            "mla-tiled(roles=.HWC, tile=(1,1,2,8), align=64)",
        ),
        (
            "1,4,9,36",
            "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=128)",
        ),
        ("1,1,4,48", "mla-tiled(roles=.HWC, tile=(1,1,1,8), align=1)"),
        (
            "1,5,6,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("1,3,6,64", "mla-cblocked(tile=(2,4), align=64)"),
        (
            "1,9,10,40",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "1,3,5,64",
            "mla-tiled(roles=.HWC, tile=(1,2,2,32), align=64)",
        ),
    ];
    check_cases(&cases, &every_pair(), 11, true);
}

/// 32-slot groups as two fixed 16-lane blocks: whole groups of 16-bit pairs and F32
/// (64 and 96 channels, no mask), and a partial last group of 16 to 31 channels (48,
/// 50 and 120: a whole first block, a masked second one, padding zeroed), in tiles of
/// rows of one, two and eight pixels, every pair, both directions, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles visited C/D/H/W holding D/H/W/C
/// pixels, BF16 pixels as low bytes then high bytes, padding written as zero and never
/// read; conversions bit-exact in every direction.
#[test]
fn thirty_two_slot_groups_in_fixed_blocks_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,10,64",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "1,3,5,96",
            "mla-tiled(roles=.HWC, tile=(1,2,2,32), align=64)",
        ),
        (
            "1,9,10,48",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "2,3,5,50",
            "mla-tiled(roles=.HWC, tile=(1,2,1,32), align=64)",
        ),
        (
            "1,5,9,120",
            "mla-tiled(roles=.HWC, tile=(1,4,4,32), align=64)",
        ),
    ];
    check_cases(&cases, &every_pair(), 23, true);
}

/// Rows of exactly 4 and 8 pixels walked group by group with the pixel loop unrolled:
/// 16-bit pixel pairs into and out of 16-slot tiles and (4,4) blocks (BF16 byte planes
/// included), and many-group pixels whose groups crowd an L1 set (one pixel a call), in
/// rows of 4 and 8 pixels beside partial rows of 1 to 3 and 5 to 7 at the edges, every
/// pair, both directions, every path.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): tiles visited C/D/H/W
/// holding D/H/W/C pixels, BF16 pixels as low bytes then high bytes, padding written as
/// zero and never read; conversions bit-exact in every direction.
#[test]
fn rows_of_four_and_eight_pixels_by_group_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,8,9,64",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("2,5,7,48", "mla-cblocked(tile=(4,4), align=64)"),
        (
            "1,9,12,32",
            "mla-tiled(roles=.HWC, tile=(1,2,8,16), align=64)",
        ),
        (
            "1,4,11,512",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,3,13,256",
            "mla-tiled(roles=.HWC, tile=(1,1,8,32), align=64)",
        ),
    ];
    check_cases(&cases, &every_pair(), 29, true);
}

/// Tiles with an alignment gap after every tile, in rows whose tiles are all consecutive
/// (one D/H tile row: a 1-D tensor, a 2-D tensor with roles WC) and in rows whose
/// channel tiles lie apart, both directions: the gaps are zeroed, and never read back.
#[test]
fn aligned_tiles_with_gaps_match_the_oracle_on_every_path() {
    let cases = [
        ("1000", "mla-tiled(roles=C, tile=(1,1,1,16), align=64)"),
        ("37", "mla-tiled(roles=C, tile=(1,1,1,8), align=128)"),
        ("33,301", "mla-tiled(roles=WC, tile=(1,1,4,16), align=256)"),
        ("3,5,40", "mla-tiled(roles=HWC, tile=(1,1,1,16), align=64)"),
        (
            "2,3,5,40",
            "mla-tiled(roles=.HWC, tile=(1,2,2,16), align=512)",
        ),
        ("3,5,40", "mla-cblocked(tile=(1,1), align=128)"),
    ];
    check_cases(
        &cases,
        &[("f32", "bf16"), ("bf16", "f32"), ("f16", "f16")],
        3,
        true,
    );
}

/// Walks of tile rows on both sides of the 16-row threshold at which the kernels take
/// rows as runs of whole H tiles (`TileWalk::runs`, which does not visit rows in storage
/// order), with outer axes, an edge H tile per outer index, partial W tiles, alignment
/// gaps zeroed per run, and MlaCBlocked rows placed by their tile number; and 16-bit
/// copies of few-channel pixels that take 32 lanes a chunk (9 to 16 channels packed two
/// per chunk, up to 8 spread into 8- and 16-slot pixels). Every path and thread count
/// (a thread's part clips the runs), both directions.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): tiles numbered with the
/// outer axes slowest, pixels D/H/W, positions past a logical extent written as zero
/// and never read, alignment gaps zero; conversions bit-exact.
#[test]
fn tile_row_runs_and_wide_few_channel_chunks_match_the_oracle_on_every_path() {
    let cases = [
        // 15, 16 and 17 rows of H tiles, the last one partial, over outer axes.
        ("5,6,7,7", "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=64)"),
        (
            "2,15,7,7",
            "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=64)",
        ),
        ("4,9,9,7", "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=64)"),
        (
            "3,2,11,5,12",
            "mla-tiled(roles=..HWC, tile=(1,4,2,16), align=64)",
        ),
        // Gaps after every tile, many rows in one run.
        (
            "2,17,9,12",
            "mla-tiled(roles=.HWC, tile=(1,1,1,16), align=64)",
        ),
        (
            "3,11,5,40",
            "mla-tiled(roles=.HWC, tile=(1,1,3,16), align=128)",
        ),
        // MlaCBlocked: edge H tiles per outer index, runs out of storage order.
        ("3,9,5,12", "mla-cblocked(tile=(2,2), align=64)"),
        ("4,7,6,4", "mla-cblocked(tile=(4,1), align=64)"),
        ("2,21,3,20", "mla-cblocked(tile=(2,4), align=128)"),
    ];
    let pairs = [
        ("f16", "f16"),
        ("bf16", "bf16"),
        ("f32", "bf16"),
        ("bf16", "f32"),
    ];
    check_cases(&cases, &pairs, 17, true);
}

/// Tensors of many outer indices (or D tiles) and few rows of tiles each, the last an
/// edge: the kernels convert the same row of tiles of every outer index in one grid
/// (rows across), zeroing the edge rows' missing pixels and the alignment gaps of each
/// row, and clip those blocks to a thread's part. MlaTiled and MlaCBlocked, every path
/// and thread count, both directions.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): tiles numbered with the outer axes
/// slowest, pixels D/H/W, positions past a logical extent written as zero and never
/// read, alignment gaps zero; conversions bit-exact.
#[test]
fn tile_rows_across_outer_indices_match_the_oracle_on_every_path() {
    let cases = [
        // 8 outer indices of 4 rows of tiles, the last an edge of 2 pixel rows.
        (
            "8,14,31,12",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        // Edge rows of 1 pixel row, partial W tiles, alignment gaps after every tile.
        (
            "6,7,7,5",
            "mla-tiled(roles=.HWC, tile=(1,3,2,8), align=128)",
        ),
        // Two outer axes (16 indices), one row of tiles each, an edge one.
        (
            "4,4,3,10,20",
            "mla-tiled(roles=..HWC, tile=(1,4,4,16), align=64)",
        ),
        // D tiles of one pixel across (no D extent in a tile), over two outer indices.
        (
            "2,9,5,6,7",
            "mla-tiled(roles=.DHWC, tile=(1,4,4,8), align=64)",
        ),
        // A D extent in the tile: its rows stay runs.
        (
            "5,3,5,6,7",
            "mla-tiled(roles=.DHWC, tile=(2,4,4,8), align=64)",
        ),
        // MlaCBlocked: a full and an edge row of tiles per outer index, with and
        // without alignment gaps.
        ("8,7,3,60", "mla-cblocked(tile=(4,4), align=64)"),
        ("9,5,7,20", "mla-cblocked(tile=(3,2), align=256)"),
        // Short walks (under 16 rows) of a few outer indices, which take blocks too:
        // the edge rows of every image in one grid.
        (
            "2,13,11,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,7,7,40",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        ("3,9,9,16", "mla-cblocked(tile=(4,4), align=64)"),
        ("2,5,5,100", "mla-cblocked(tile=(4,4), align=128)"),
        // A block per outer index (three D tiles each): 300 blocks, more than `prepare`
        // lists, so the walk makes its blocks at run time.
        (
            "300,3,2,2,3",
            "mla-tiled(roles=.DHWC, tile=(1,2,2,8), align=64)",
        ),
    ];
    let pairs = [("f16", "f16"), ("f32", "bf16"), ("bf16", "f32")];
    check_cases(&cases, &pairs, 29, true);
}

/// Tiles one pixel row high whose W tiles follow each other on both sides (no alignment
/// gap), and tiles of one pixel (with or without a gap): the kernels join those W tiles,
/// and the tile rows after them, into one long row of pixels (or take the W tiles as
/// the pixels of a one-pixel row). Few and many channels, padded and dense flat sides,
/// both directions, every path.
#[test]
fn tiles_one_pixel_high_joined_into_long_rows_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,13,11,2",
            "mla-tiled(roles=.HWC, tile=(1,1,1,32), align=64)",
        ),
        (
            "1,13,11,2",
            "mla-tiled(roles=.HWC, tile=(1,1,4,32), align=64)",
        ),
        (
            "1,13,11,2",
            "mla-tiled(roles=.HWC, tile=(1,1,1,16), align=64)",
        ),
        ("2,5,9,3", "mla-tiled(roles=.HWC, tile=(1,1,1,8), align=16)"),
        (
            "2,5,9,40",
            "mla-tiled(roles=.HWC, tile=(1,1,3,16), align=2)",
        ),
        (
            "1,4,6,100",
            "mla-tiled(roles=.HWC, tile=(1,1,1,16), align=32)",
        ),
        ("3,7,17", "mla-tiled(roles=HWC, tile=(1,1,2,16), align=4)"),
        ("3,7,16", "mla-cblocked(tile=(1,1), align=32)"),
    ];
    for (d, p) in cases {
        for (a, b) in [
            ("f32", "bf16"),
            ("bf16", "f32"),
            ("f16", "f16"),
            ("bf16", "bf16"),
        ] {
            // Dense, and pixels padded by two elements and rows by three pixels.
            let dims: Vec<u64> = d.split(',').map(|x| x.parse().unwrap()).collect();
            let (mut st, mut acc) = (vec![0u64; dims.len()], width(a));
            for ax in (0..dims.len()).rev() {
                st[ax] = acc;
                acc = (acc * dims[ax])
                    + if ax + 1 == dims.len() {
                        2 * st[ax]
                    } else {
                        3 * st[ax + 1]
                    };
            }
            let list: Vec<String> = st.iter().map(u64::to_string).collect();
            for flat in [String::new(), format!(" strided({})", list.join(","))] {
                check_all_paths(
                    &spec(&format!("{a}[{d}]{flat}")),
                    &spec(&format!("{b}[{d}] {p}")),
                    5,
                );
            }
            check_all_paths(
                &spec(&format!("{a}[{d}] {p}")),
                &spec(&format!("{b}[{d}]")),
                6,
            );
        }
    }
}

/// Few pixels per tile row and many channel groups into tiles (the kernels then convert
/// group by group over the whole grid, writing the tiles in storage order): whole and
/// partial last groups, partial W and H tiles, an outer axis, each kind of conversion
/// (moving, widening, narrowing), every path.
#[test]
fn many_channel_groups_over_few_pixels_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,7,7,512",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,5,5,200",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,3,6,136",
            "mla-tiled(roles=.HWC, tile=(1,2,3,32), align=128)",
        ),
        ("2,7,3,100", "mla-cblocked(tile=(2,4), align=64)"),
    ];
    check_cases(
        &cases,
        &[
            ("f32", "f32"),
            ("bf16", "f32"),
            ("f16", "f16"),
            ("bf16", "bf16"),
            ("f32", "bf16"),
        ],
        7,
        false,
    );
}

/// Many tile rows whose pixels hold 16 or more channel groups, their channel tiles a
/// multiple of 2 KiB apart (the kernels split the grid into tile rows and convert each
/// group by group over its row, 8-slot groups one plain block per pixel): whole and
/// partial last groups, partial W and H tiles, an outer axis, a grid too large for one
/// piece, each kind of conversion, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles visited C/D/H/W holding D/H/W/C
/// pixels, BF16 pixels as low bytes then high bytes, padding written as zero.
#[test]
fn many_channel_groups_over_many_tile_rows_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,16,16,256",
            "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)",
        ),
        (
            "1,14,14,257",
            "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)",
        ),
        (
            "2,8,7,136",
            "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)",
        ),
        (
            "1,16,16,257",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,32,48,129",
            "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)",
        ),
    ];
    check_cases(
        &cases,
        &[
            ("f32", "f32"),
            ("f16", "f32"),
            ("bf16", "f32"),
            ("bf16", "bf16"),
            ("f32", "f16"),
        ],
        11,
        false,
    );
    // Source pixels 1 KiB apart (rows of several groups, a source line's worth, with
    // groups left over before the last, partial one).
    for (a, b) in [("f16", "f16"), ("bf16", "f32"), ("f16", "bf16")] {
        check_all_paths(
            &spec(&format!("{a}[1,16,16,500] strided(262144,16384,1024,2)")),
            &spec(&format!(
                "{b}[1,16,16,500] mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)"
            )),
            12,
        );
    }
}

/// Long rows of pixels a multiple of 512 bytes apart on the flat side, walked group by
/// group (tiles one pixel high join into rows of up to 64 pixels, which the kernels cut
/// into pieces of 8 pixels per L1 set they spread over): whole and partial pieces, both
/// directions, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles visited C/D/H/W holding D/H/W/C
/// pixels, BF16 pixels as low bytes then high bytes, padding written as zero.
#[test]
fn long_rows_of_aliased_pixels_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,8,8,2048",
            "mla-tiled(roles=.HWC, tile=(1,1,8,16), align=64)",
        ),
        (
            "1,3,21,512",
            "mla-tiled(roles=.HWC, tile=(1,1,7,16), align=64)",
        ),
        (
            "2,4,13,256",
            "mla-tiled(roles=.HWC, tile=(1,1,13,32), align=64)",
        ),
    ];
    check_cases(
        &cases,
        &[("f16", "f16"), ("f32", "bf16"), ("bf16", "f32")],
        5,
        true,
    );
}

/// Copies of pixels a multiple of 1 KiB apart into tiles whose channel tiles lie a
/// multiple of 2 KiB apart, walked channel tiles outermost, several source lines of
/// groups per row: strided inputs whose channel count leaves full groups and a partial
/// one after the last whole step, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles visited C/D/H/W holding D/H/W/C
/// pixels, BF16 pixels as low bytes then high bytes, padding written as zero.
#[test]
fn copies_of_aliased_pixels_in_many_groups_match_the_oracle_on_every_path() {
    let cases = [
        // 62 full 16-slot groups and 8 channels, pixels 2 KiB apart, 4 spatial tiles.
        (
            "f16",
            "1,7,7,1000",
            "strided(100352,14336,2048,2)",
            "(1,4,4,16)",
        ),
        (
            "bf16",
            "1,7,7,1000",
            "strided(100352,14336,2048,2)",
            "(1,4,4,16)",
        ),
        // 125 8-slot groups, pixels 4 KiB apart, 8 spatial tiles.
        (
            "f32",
            "1,7,13,1000",
            "strided(372736,53248,4096,4)",
            "(1,4,4,8)",
        ),
        // 16-bit 8-slot groups: 62 full and 4 channels, pixels 1 KiB apart, two images.
        (
            "f16",
            "2,5,13,500",
            "strided(66560,13312,1024,2)",
            "(1,4,4,8)",
        ),
    ];
    for (dt, dims, strided, tile) in cases {
        check_all_paths(
            &spec(&format!("{dt}[{dims}] {strided}")),
            &spec(&format!(
                "{dt}[{dims}] mla-tiled(roles=.HWC, tile={tile}, align=64)"
            )),
            21,
        );
    }
}

/// 16-bit elements in 16-slot tiles and blocks, which the kernels move two pixels per
/// 64-byte vector on the tiles' side: rows of odd length (a single pixel at the end),
/// whole channel tiles and a partial last one (BF16 copies out of tiles split the two),
/// byte planes in both directions, F16<->BF16 conversions, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles visited C/D/H/W holding D/H/W/C
/// pixels, BF16 pixels as low bytes then high bytes, padding written as zero.
#[test]
fn pixel_pairs_of_16_bit_tiles_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,7,64",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,5,11,48",
            "mla-tiled(roles=.HWC, tile=(1,2,5,16), align=64)",
        ),
        ("1,7,9,40", "mla-cblocked(tile=(4,3), align=64)"),
        ("1,6,6,32", "mla-cblocked(tile=(2,2), align=64)"),
    ];
    check_cases(
        &cases,
        &[
            ("bf16", "bf16"),
            ("f16", "f16"),
            ("bf16", "f16"),
            ("f16", "bf16"),
        ],
        21,
        true,
    );
}

/// F32 into F16 16-slot tiles and blocks, which the AVX-512 path converts two pixels
/// per 64-byte store on the tiles' side: rows of odd length (a single pixel at the end),
/// a partial last channel group (its unread lanes stored as zero padding; of 8
/// elements or fewer, by 256-bit halves), whole groups, and 17 groups a pixel 8 KiB
/// apart (walked group by group), every path.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): tiles hold D/H/W/C
/// pixels, padding written as zero, values rounded to nearest even as `half` does.
#[test]
fn f32_into_f16_tile_pixel_pairs_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,5,11,17",
            "mla-tiled(roles=.HWC, tile=(1,2,5,16), align=64)",
        ),
        ("1,6,6,32", "mla-cblocked(tile=(2,2), align=64)"),
        ("1,7,9,100", "mla-cblocked(tile=(4,3), align=64)"),
        (
            "1,16,16,257",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,16,16,264",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
    ];
    check_cases(&cases, &[("f32", "f16"), ("f32", "bf16")], 23, false);
}

/// F32 into 16-slot BF16 tile pixels two at a time, where one instruction rounds both
/// pixels' groups but flushes subnormals: inputs dense in subnormals (every other
/// element one, the rest normal values, rounding ties, NaNs of both signs, infinities and
/// zeros) still round each as `half` does, into tiles and MlaCBlocked blocks, last
/// groups of 8 or fewer channels and more.
/// Spec requirement (tensor storage, conversions): every element converted as `half`
/// converts it (round to nearest even, subnormals kept, NaNs quiet).
#[test]
fn f32_into_bf16_pixel_pairs_keep_subnormals_on_every_path() {
    let specials: [u32; 12] = [
        0x0000_0001,
        0x8000_8000,
        0x007F_FFFF,
        0x0000_7FFF,
        0x3F80_8000,
        0x3F81_8000,
        0x7FC0_0001,
        0xFF80_0001,
        0x7F80_0000,
        0x8000_0000,
        0x0040_8000,
        0x8001_8001,
    ];
    let cases = [
        (
            "1,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,5,11,8",
            "mla-tiled(roles=.HWC, tile=(1,2,5,16), align=64)",
        ),
        ("1,7,9,100", "mla-cblocked(tile=(4,3), align=64)"),
        (
            "1,5,6,64",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
    ];
    for (dims, placement) in cases {
        let from = spec(&format!("f32[{dims}]"));
        let to = spec(&format!("bf16[{dims}] {placement}"));
        let n = from.dims.element_count().unwrap() as usize;
        let bytes: Vec<u8> = (0..n)
            .flat_map(|i| {
                let bits = if i % 2 == 0 {
                    0x0000_0001u32.wrapping_add((i as u32).wrapping_mul(0x9E37)) & 0x807F_FFFF
                } else {
                    specials[i / 2 % specials.len()]
                };
                bits.to_le_bytes()
            })
            .collect();
        check_all_paths_on(&from, &to, &AlignedBytes::from_slice(&bytes));
    }
}

/// F16 into BF16 tiles, where the AVX-512 path widens two channel groups (two tile
/// pixels of a 16-slot group, or the halves of a whole 32-slot group) and narrows both
/// by one `vcvtne2ps2bf16`: every F16 bit pattern (subnormals, both zeros, infinities,
/// NaNs with payloads) in 16-slot tiles with a partial last group, whole groups, (4,3)
/// blocks and 32-slot tiles, then read back out of the tiles.
/// Spec requirement (tensor storage, conversions): F16 -> BF16 rounds to nearest even
/// through F32, bit-exact with `half`; padding written as zero.
#[test]
fn f16_into_bf16_group_pairs_match_the_oracle_for_every_f16() {
    let cases = [
        (
            "3,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,5,6,64",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("2,7,9,100", "mla-cblocked(tile=(4,3), align=64)"),
        (
            "3,9,11,64",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "3,5,7,96",
            "mla-tiled(roles=.HWC, tile=(1,4,4,32), align=64)",
        ),
        (
            "1,13,11,96",
            "mla-tiled(roles=.HWC, tile=(1,4,4,32), align=64)",
        ),
    ];
    let mut seen = vec![false; 1 << 16];
    let mut next = 0u32;
    for (k, (dims, placement)) in cases.iter().enumerate() {
        let from = spec(&format!("f16[{dims}]"));
        let to = spec(&format!("bf16[{dims}] {placement}"));
        let n = from.dims.element_count().unwrap() as usize;
        // An odd multiplier walks all 2^16 patterns as the count goes on across cases.
        let bytes: Vec<u8> = (0..n)
            .flat_map(|_| {
                let bits = next.wrapping_mul(40503) as u16;
                next += 1;
                seen[bits as usize] = true;
                bits.to_le_bytes()
            })
            .collect();
        check_all_paths_on(&from, &to, &AlignedBytes::from_slice(&bytes));
        let tiled = spec(&format!("f16[{dims}] {placement}"));
        check_all_paths(&tiled, &spec(&format!("bf16[{dims}]")), 31 + k as u64);
    }
    assert!(seen.iter().all(|&s| s), "every F16 pattern is converted");
}

/// 32-slot tiles whose last channel group holds 16 to 31 channels (48, 60 and 120
/// channels): the group walk's instances for such a group (`planned` with a last group
/// of 16 or more), every dtype pair, into and out of the tiles.
/// Spec requirement (tensor storage, MlaTiled): tiles hold D/H/W/C pixels, padding
/// written as zero.
#[test]
fn long_last_groups_of_32_slot_tiles_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,11,48",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "2,5,7,60",
            "mla-tiled(roles=.HWC, tile=(1,4,4,32), align=64)",
        ),
        (
            "1,3,10,120",
            "mla-tiled(roles=.HWC, tile=(1,2,8,32), align=64)",
        ),
    ];
    let pairs: Vec<(&str, &str)> = DTYPES
        .iter()
        .flat_map(|a| DTYPES.iter().map(move |b| (*a, *b)))
        .collect();
    check_cases(&cases, &pairs, 37, true);
}

/// BF16 copies into 32-slot byte-plane tiles with a partial last channel group, which
/// the AVX-512 path walks group by group from 8 pixels a tile row (fewer pixels, pixel
/// by pixel): 40, 75 and 291 channels in 1x8x8x32, 1x4x8x32 and 1x2x4x32 tiles, rows of
/// 8 and of fewer pixels, read back out of the tiles too.
/// Spec requirement (tensor storage, MlaTiled): tiles hold D/H/W/C pixels, padding
/// written as zero, BF16 tiles as byte planes.
#[test]
fn bf16_copies_into_32_slot_tiles_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,11,40",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        (
            "2,5,19,75",
            "mla-tiled(roles=.HWC, tile=(1,4,8,32), align=64)",
        ),
        (
            "1,3,13,291",
            "mla-tiled(roles=.HWC, tile=(1,1,8,32), align=64)",
        ),
        (
            "1,5,9,41",
            "mla-tiled(roles=.HWC, tile=(1,2,4,32), align=64)",
        ),
    ];
    check_cases(&cases, &[("bf16", "bf16")], 29, true);
}

/// Byte strides of a dense layout of `dims` whose axes are stored in the order `perm`
/// (slowest first), each padded by `pad` elements.
fn permuted(dims: &[u64], width: u64, perm: &[usize], pad: u64) -> String {
    let mut st = vec![0u64; dims.len()];
    let mut acc = width;
    for &ax in perm.iter().rev() {
        st[ax] = acc;
        acc *= dims[ax] + pad;
    }
    let s: Vec<String> = st.iter().map(u64::to_string).collect();
    format!("strided({})", s.join(","))
}

/// Transposing casts: NCHW data into an NHWC view and back, and other axis orders, with
/// and without padding; the run becomes the axis dense on the destination and its pixels
/// the axis dense on the source, and every path gives the oracle's bytes.
#[test]
fn transposing_casts_match_the_oracle_on_every_path() {
    let cases: [(&[u64], &[usize]); 5] = [
        (&[1, 40, 5, 7], &[0, 2, 3, 1]),
        (&[2, 3, 9, 17], &[0, 2, 3, 1]),
        (&[33, 17], &[1, 0]),
        (&[4, 5, 6], &[2, 0, 1]),
        (&[3, 16, 2, 8], &[3, 1, 0, 2]),
    ];
    for (k, (dims, perm)) in cases.iter().enumerate() {
        let d: Vec<String> = dims.iter().map(u64::to_string).collect();
        let d = d.join(",");
        for (a, b) in [
            ("f32", "bf16"),
            ("bf16", "f32"),
            ("f16", "f16"),
            ("f32", "f32"),
        ] {
            let (wa, wb) = (width(a), width(b));
            for pad in [0, 1] {
                let plain = format!("{a}[{d}]");
                let perm_b = format!("{b}[{d}] {}", permuted(dims, wb, perm, pad));
                check_all_paths(&spec(&plain), &spec(&perm_b), k as u64);
                let perm_a = format!("{a}[{d}] {}", permuted(dims, wa, perm, pad));
                check_all_paths(&spec(&perm_a), &spec(&format!("{b}[{d}]")), k as u64 + 9);
            }
        }
    }
}

/// Strided views whose channels are 2 to 4 elements apart (an interleaved or
/// every-other-element view), on either side of Cast, CastTess and CastUntess: blocks of
/// 16 elements are masked byte loads and stores around a lane permutation, and the gaps
/// between elements are never written.
#[test]
fn narrow_channel_strides_match_the_oracle_on_every_path() {
    for c in [1u64, 5, 16, 17, 40] {
        let d = format!("2,3,5,{c}");
        for (a, b) in [
            ("f32", "bf16"),
            ("bf16", "f32"),
            ("f16", "f16"),
            ("f32", "f32"),
            ("bf16", "f16"),
        ] {
            let (wa, wb) = (width(a), width(b));
            for k in [2u64, 3, 4] {
                if k * wa > 8 && k * wb > 8 {
                    continue;
                }
                // Channels `k` elements apart, pixels after all of them, one spare pixel per row.
                let view = |w: u64| {
                    let sc = k * w;
                    let sw = sc * c;
                    let sh = sw * 6;
                    format!("strided({},{sh},{sw},{sc})", sh * 3)
                };
                let tiled = "mla-tiled(roles=.HWC, tile=(1,2,4,16), align=64)";
                check_all_paths(
                    &spec(&format!("{a}[{d}]")),
                    &spec(&format!("{b}[{d}] {}", view(wb))),
                    k,
                );
                check_all_paths(
                    &spec(&format!("{a}[{d}] {}", view(wa))),
                    &spec(&format!("{b}[{d}]")),
                    k,
                );
                check_all_paths(
                    &spec(&format!("{a}[{d}] {}", view(wa))),
                    &spec(&format!("{b}[{d}] {tiled}")),
                    k,
                );
                check_all_paths(
                    &spec(&format!("{a}[{d}] {tiled}")),
                    &spec(&format!("{b}[{d}] {}", view(wb))),
                    k,
                );
            }
        }
    }
}

/// Tiles of one channel slot (every channel its own channel tile, a planar layout): the
/// kernels convert a pixel's channels as one group whose elements lie a channel tile
/// apart, by the transposes, joining a tile's H rows to its W pixels when its body is
/// dense. Tiles 16, 2 and 1 pixels wide, partial W and H tiles (short runs over many
/// channels), channel tiles a multiple of 1 KiB apart (written in slices of channels),
/// a D role, outer axes,
/// alignment gaps (one-element tiles, which keep the per-group walk), BF16 byte planes
/// of one slot, dense and padded flat sides, both directions, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles numbered W fastest and the channel
/// tile slowest, pixels D/H/W, padding written as zero and never read; conversions
/// bit-exact.
#[test]
fn one_slot_channel_tiles_match_the_oracle_on_every_path() {
    let cases = [
        (
            "2,9,37,3",
            "mla-tiled(roles=.HWC, tile=(1,1,16,1), align=4)",
        ),
        (
            "1,8,13,40",
            "mla-tiled(roles=.HWC, tile=(1,8,16,1), align=64)",
        ),
        (
            "2,13,9,20",
            "mla-tiled(roles=.HWC, tile=(1,8,2,1), align=4)",
        ),
        ("3,5,6,17", "mla-tiled(roles=.HWC, tile=(1,4,4,1), align=2)"),
        (
            "1,11,5,2",
            "mla-tiled(roles=.HWC, tile=(1,8,1,1), align=16)",
        ),
        (
            "2,3,7,5,9",
            "mla-tiled(roles=.DHWC, tile=(2,4,2,1), align=4)",
        ),
        ("4,5,33", "mla-tiled(roles=HWC, tile=(1,1,1,1), align=4)"),
        ("3,7,6", "mla-tiled(roles=HWC, tile=(1,2,1,1), align=64)"),
        // Runs of 2 to 7 pixels over many channels (partial W tiles).
        ("3,9,7,40", "mla-tiled(roles=.HWC, tile=(1,8,8,1), align=4)"),
        ("2,5,3,20", "mla-tiled(roles=.HWC, tile=(1,4,8,1), align=2)"),
        // Channel tiles 1 or 2 KiB apart: CastTess in slices of 8 channels.
        (
            "1,16,32,20",
            "mla-tiled(roles=.HWC, tile=(1,8,16,1), align=64)",
        ),
    ];
    check_dense_and_padded(&cases, 21);
}

/// Every case of `cases` with five dtype pairs, into its placement from a dense and a
/// padded flat side (pixels padded by one element, rows by two pixels), and back out
/// into both (`seed + 1`), every path.
fn check_dense_and_padded(cases: &[(&str, &str)], seed: u64) {
    for (d, p) in cases {
        for (a, b) in [
            ("f32", "bf16"),
            ("bf16", "f32"),
            ("f16", "f16"),
            ("bf16", "bf16"),
            ("f32", "f32"),
        ] {
            let dims: Vec<u64> = d.split(',').map(|x| x.parse().unwrap()).collect();
            let padded = |w: u64| {
                // Pixels padded by one element, rows by two pixels.
                let (mut st, mut acc) = (vec![0u64; dims.len()], w);
                for ax in (0..dims.len()).rev() {
                    st[ax] = acc;
                    acc = acc * dims[ax]
                        + if ax + 1 == dims.len() {
                            st[ax]
                        } else {
                            2 * st[ax + 1]
                        };
                }
                let list: Vec<String> = st.iter().map(u64::to_string).collect();
                format!(" strided({})", list.join(","))
            };
            let (wa, wb) = (width(a), width(b));
            for flat in [String::new(), padded(wa)] {
                check_all_paths(
                    &spec(&format!("{a}[{d}]{flat}")),
                    &spec(&format!("{b}[{d}] {p}")),
                    seed,
                );
            }
            for flat in [String::new(), padded(wb)] {
                check_all_paths(
                    &spec(&format!("{a}[{d}] {p}")),
                    &spec(&format!("{b}[{d}]{flat}")),
                    seed + 1,
                );
            }
        }
    }
}

/// The dtype pairs `check_dense_and_padded` leaves out (F16 with BF16 and F32), both
/// directions, dense flat sides, every path.
fn check_other_pairs(cases: &[(&str, &str)], seed: u64) {
    for (d, p) in cases {
        for (a, b) in [
            ("f16", "bf16"),
            ("bf16", "f16"),
            ("f16", "f32"),
            ("f32", "f16"),
        ] {
            check_all_paths(
                &spec(&format!("{a}[{d}]")),
                &spec(&format!("{b}[{d}] {p}")),
                seed,
            );
            check_all_paths(
                &spec(&format!("{a}[{d}] {p}")),
                &spec(&format!("{b}[{d}]")),
                seed + 1,
            );
        }
    }
}

/// 16-bit copies into and out of 16-slot tiles and blocks: the AVX2 path (and AVX-512,
/// for BF16 byte planes) moves one channel group per 256-bit vector, a partial last
/// group's channels by a dword-masked access and one 16-bit access for an odd last
/// channel. Even and odd channel counts, one or several groups, partial tiles,
/// alignment gaps, outer indices, dense and padded flat sides, both directions, every
/// path and thread count.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): channel padding and
/// positions past a logical extent written as zero and never read, BF16 tiles in byte
/// planes; conversions bit-exact.
#[test]
fn sixteen_bit_copies_through_16_slot_groups_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,9,7,9",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("2,5,6,12", "mla-cblocked(tile=(4,4), align=64)"),
        (
            "1,6,11,13",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "3,4,5,15",
            "mla-tiled(roles=.HWC, tile=(1,1,1,16), align=64)",
        ),
        ("1,7,9,8", "mla-cblocked(tile=(2,2), align=128)"),
        (
            "1,5,5,11",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        // Full groups before a partial last one; fewer than 8 channels.
        (
            "2,9,7,40",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("1,6,5,17", "mla-cblocked(tile=(2,4), align=128)"),
        ("1,5,9,3", "mla-cblocked(tile=(4,4), align=64)"),
    ];
    check_dense_and_padded(&cases, 41);
}

/// Tiles of 32 channel slots: the AVX2 path moves a group as two 16-slot halves (BF16
/// byte planes of 32 slots by one interleave of both planes), a partial last group's
/// halves masked (the second one empty, partial or whole; an odd last channel). One or
/// several groups, partial tiles, alignment gaps, outer indices, dense and padded flat
/// sides, both directions, every dtype pair, every path and thread count.
/// Spec requirement (tensor storage, MlaTiled): channel padding and positions past a
/// logical extent written as zero and never read, BF16 tiles in byte planes of the
/// tile's channel slots; conversions bit-exact.
#[test]
fn thirty_two_slot_groups_match_the_oracle_on_every_path() {
    let t8 = "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)";
    let cases = [
        ("1,9,7,16", t8),
        (
            "2,5,6,17",
            "mla-tiled(roles=.HWC, tile=(1,4,4,32), align=64)",
        ),
        ("1,6,11,31", t8),
        (
            "1,3,9,32",
            "mla-tiled(roles=.HWC, tile=(1,2,4,32), align=128)",
        ),
        ("1,5,5,40", t8),
        (
            "2,3,7,63",
            "mla-tiled(roles=.HWC, tile=(1,4,2,32), align=64)",
        ),
        (
            "1,4,5,67",
            "mla-tiled(roles=.HWC, tile=(1,1,4,32), align=64)",
        ),
        ("1,10,9,5", t8),
    ];
    check_dense_and_padded(&cases, 43);
    check_other_pairs(&cases[..4], 45);
}

/// Tiles of 8 channel slots: the AVX2 path moves a group as one 128-bit (16-bit) or
/// 256-bit (F32) access, BF16 byte planes of 8 slots by one byte interleave, a partial
/// last group dword-masked with an odd last channel. One or several groups, partial
/// tiles, alignment gaps, outer indices, dense and padded flat sides, both directions,
/// every dtype pair, every path and thread count.
/// Spec requirement (tensor storage, MlaTiled): channel padding and positions past a
/// logical extent written as zero and never read, BF16 tiles in byte planes of the
/// tile's channel slots; conversions bit-exact.
#[test]
fn eight_slot_groups_match_the_oracle_on_every_path() {
    let t = "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)";
    let cases = [
        ("1,9,7,8", t),
        ("2,5,6,3", t),
        (
            "1,6,11,7",
            "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=128)",
        ),
        ("1,3,9,16", t),
        (
            "1,5,5,21",
            "mla-tiled(roles=.HWC, tile=(1,1,4,8), align=32)",
        ),
        ("2,3,7,40", t),
        ("1,4,5,1", t),
    ];
    check_dense_and_padded(&cases, 47);
    check_other_pairs(&cases[..4], 48);
}

/// Few-channel 16-bit rows out of 8- and 16-slot tiles and blocks take the packed plan
/// (several pixels a vector), whose tables a thread keeps across grids and runs, four
/// plans by element types, sides, row and chunk: rows of whole and partial W tiles
/// alternate within a run, dense and padded flat sides follow each other with the same
/// rows, and more than four distinct rows pass, both directions, every path.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): channel padding and
/// positions past a logical extent written as zero and never read, BF16 tiles in byte
/// planes; conversions bit-exact.
#[test]
fn packed_plans_kept_across_grids_match_the_oracle_on_every_path() {
    let t8 = "mla-tiled(roles=.HWC, tile=(1,4,4,8), align=64)";
    let cases = [
        ("1,7,7,3", t8),
        (
            "2,9,13,6",
            "mla-tiled(roles=.HWC, tile=(1,2,4,8), align=32)",
        ),
        ("3,5,11,1", "mla-cblocked(tile=(4,4), align=64)"),
        ("1,6,10,2", "mla-cblocked(tile=(2,2), align=16)"),
        (
            "2,7,9,5",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("1,13,5,8", t8),
    ];
    check_dense_and_padded(&cases, 53);
    check_other_pairs(&cases[..3], 54);
}

/// Tiles of 2 and 4 channel slots with many channel groups: the kernels transpose chunks
/// of 8 or 4 pixels by blocks of 16 channels as units of 2 or 4 lanes. Partial last
/// groups and blocks, chunks cut short by the run's end, a tile's H rows joined to its
/// W pixels, runs of more than one piece over groups 4 or 8 KiB apart, a D role, outer
/// axes, alignment gaps, runs shorter than a chunk (left to the group walk), BF16 byte
/// planes of 2 and 4 slots, dense and padded flat sides, both directions, every path.
/// Spec requirement (tensor storage, MlaTiled): tiles numbered W fastest and the channel
/// tile slowest, pixels D/H/W, channel padding and alignment gaps written as zero,
/// padding never read; conversions bit-exact.
#[test]
fn two_and_four_slot_channel_tiles_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,4,128,20",
            "mla-tiled(roles=.HWC, tile=(1,1,16,4), align=1)",
        ),
        (
            "1,3,70,34",
            "mla-tiled(roles=.HWC, tile=(1,1,2,2), align=1)",
        ),
        (
            "1,9,9,50",
            "mla-tiled(roles=.HWC, tile=(1,4,4,2), align=64)",
        ),
        (
            "3,7,20,7",
            "mla-tiled(roles=.HWC, tile=(1,2,8,4), align=32)",
        ),
        (
            "2,5,6,9,18",
            "mla-tiled(roles=.DHWC, tile=(2,1,8,2), align=4)",
        ),
        ("5,33,19", "mla-tiled(roles=HWC, tile=(1,1,32,4), align=16)"),
        (
            "4,6,2,24",
            "mla-tiled(roles=.HWC, tile=(1,1,2,4), align=128)",
        ),
        // Runs shorter than a chunk over many groups (partial W tiles).
        (
            "2,9,5,40",
            "mla-tiled(roles=.HWC, tile=(1,8,16,2), align=128)",
        ),
        (
            "3,4,3,36",
            "mla-tiled(roles=.HWC, tile=(1,1,8,4), align=64)",
        ),
    ];
    check_dense_and_padded(&cases, 31);
}

/// MlaCBlocked tiles of 8 KiB or more (many channel blocks) with missing pixels: only
/// those pixels are zeroed before the conversion, not the whole tile. Edge rows (missing
/// H rows in full and partial W tiles), partial last W tiles, a partial last channel
/// block, (4,4) and (2,2) patches, an outer axis, alignment gaps, every pair.
/// Spec requirement (tensor storage, MlaCBlocked): pixels outside the tensor, channel
/// padding and alignment gaps written as zero; conversions bit-exact.
#[test]
fn large_channel_blocked_tiles_zero_their_missing_pixels_and_match_the_oracle() {
    let cases = [
        ("1,7,7,256", "mla-cblocked(tile=(4,4), align=64)"),
        ("2,6,9,300", "mla-cblocked(tile=(4,4), align=1024)"),
        ("1,3,5,1030", "mla-cblocked(tile=(2,2), align=64)"),
        ("1,5,3,520", "mla-cblocked(tile=(4,4), align=64)"),
    ];
    check_cases(&cases, &every_pair(), 61, false);
}

/// Few-channel pixels in rows that split into equal chunks: CastTess spreads each chunk
/// into a constant number of whole 64-byte vectors (1, 2, 3, 4 and 8 here), CastUntess
/// gathers a constant number of pixels per chunk (2, 3, 4, 5 and 8), and rows that do
/// not split evenly (7 pixels, a partial W tile of 1) keep the general chunk loop.
/// Every dtype pair (BF16 byte planes included), both directions, every path and thread
/// count.
/// Spec requirement (tensor storage, MlaTiled and MlaCBlocked): positions past a logical
/// extent written as zero and never read; conversions bit-exact.
#[test]
fn few_channel_rows_of_equal_chunks_match_the_oracle_on_every_path() {
    let cases = [
        // 4-pixel rows: two vectors of 16-bit pixels, four of F32; 4-pixel gathers.
        (
            "2,7,9,3",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        // 8-pixel rows of 32-slot pixels: 4 + 4 pixels (4 or 8 vectors); gathers of 4.
        (
            "1,5,16,3",
            "mla-tiled(roles=.HWC, tile=(1,8,8,32), align=64)",
        ),
        // 6-pixel rows of 5 channels: F32 chunks of 3 pixels (3 vectors), 16-bit
        // chunks of 2 (1 vector); gathers of 3.
        (
            "1,4,12,5",
            "mla-tiled(roles=.HWC, tile=(1,2,6,16), align=64)",
        ),
        // 10-pixel rows of 3 channels: gathers of 5.
        (
            "1,3,20,3",
            "mla-tiled(roles=.HWC, tile=(1,1,10,16), align=64)",
        ),
        // 8-pixel rows of 2 channels: gathers of 8, 16-bit chunks of 8 (4 vectors).
        (
            "2,9,8,2",
            "mla-tiled(roles=.HWC, tile=(1,1,8,16), align=64)",
        ),
        // 8 channels: chunks and gathers of 2 pixels.
        (
            "1,6,6,8",
            "mla-tiled(roles=.HWC, tile=(1,2,2,16), align=64)",
        ),
        // 7-pixel rows: no equal split.
        (
            "1,3,14,3",
            "mla-tiled(roles=.HWC, tile=(1,1,7,16), align=64)",
        ),
        ("1,10,9,3", "mla-cblocked(tile=(4,4), align=64)"),
    ];
    check_cases(&cases, &every_pair(), 41, true);
}

/// Issue 11: F16 copies of 1 to 8 channels out of 16-slot pixels (1x4x4x16 tiles, (4,4)
/// and (2,2) blocks) take the packed plan, several pixels a 512-bit load; partial tiles,
/// odd rows and outer axes included.
#[test]
fn f16_copies_out_of_16_slot_pixels_match_the_oracle_on_every_path() {
    let counts = [
        (1, "2,9,7"),
        (2, "1,13,6"),
        (3, "3,5,11"),
        (4, "1,7,9"),
        (5, "2,6,5"),
        (6, "1,11,13"),
        (7, "1,4,17"),
        (8, "2,9,10"),
    ];
    let placements = [
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "mla-cblocked(tile=(4,4), align=64)",
        "mla-cblocked(tile=(2,2), align=64)",
    ];
    check_channel_counts(&counts, &placements, ("f16", "f16"), 43);
}

/// `check_cases` over `(channels, leading dims)` shapes, each in every placement.
fn check_channel_counts(
    counts: &[(u32, &str)],
    placements: &[&str],
    pair: (&str, &str),
    seed: u64,
) {
    let dims: Vec<String> = counts.iter().map(|(c, d)| format!("{d},{c}")).collect();
    let cases: Vec<(&str, &str)> = dims
        .iter()
        .flat_map(|d| placements.iter().map(move |p| (d.as_str(), *p)))
        .collect();
    check_cases(&cases, &[pair], seed, true);
}

/// Issue 11: BF16 copies into 16-slot byte-plane tiles whose channel tiles lie a
/// multiple of 2 KiB apart are walked one channel group at a time over the whole grid,
/// each row of a group in pixel pairs (one 64-byte store for two tile pixels); the last
/// group (partial, or whole) and source pixels that alias stay on the block walks.
#[test]
fn bf16_copies_over_the_grid_in_pixel_pairs_match_the_oracle_on_every_path() {
    let cases = [
        (
            "1,16,16,256",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "4,6,7,257",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "2,7,7,520",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            "1,5,9,100",
            "mla-tiled(roles=.HWC, tile=(1,2,4,16), align=64)",
        ),
        (
            "1,6,5,1024",
            "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        ),
        ("1,9,17,80", "mla-cblocked(tile=(8,8), align=64)"),
    ];
    check_cases(&cases, &[("bf16", "bf16")], 47, true);
}

/// Issue 11: BF16 copies of 9 to 15 channels out of 16-slot byte planes (one partial
/// group a pixel) take the packed plan; 8 and 16 channels stay on the group loop.
#[test]
fn bf16_copies_of_a_lone_partial_group_out_of_byte_planes_match_the_oracle_on_every_path() {
    let counts = [
        (8, "1,6,9"),
        (9, "2,7,5"),
        (11, "1,9,13"),
        (12, "3,5,6"),
        (13, "1,11,7"),
        (15, "2,4,17"),
        (16, "1,5,5"),
    ];
    let placements = [
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "mla-tiled(roles=.HWC, tile=(1,2,8,16), align=64)",
        "mla-cblocked(tile=(4,4), align=64)",
    ];
    check_channel_counts(&counts, &placements, ("bf16", "bf16"), 53);
}

/// Issue 11: BF16 copies out of 16-slot byte planes whose pixels hold 2 to 4 channel
/// groups, the last partial (20 to 56 channels), go in pixel pairs with that group's
/// elements masked; 32 and 72 channels stay on the group loop.
#[test]
fn bf16_copies_of_few_groups_ending_partial_out_of_byte_planes_match_the_oracle() {
    let counts = [
        (20, "1,6,9"),
        (24, "2,5,7"),
        (32, "1,4,6"),
        (40, "1,9,11"),
        (44, "2,3,5"),
        (56, "1,5,13"),
        (72, "1,6,7"),
    ];
    let placements = [
        "mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "mla-tiled(roles=.HWC, tile=(1,1,8,16), align=64)",
        "mla-cblocked(tile=(4,4), align=64)",
        "mla-cblocked(tile=(2,2), align=64)",
    ];
    check_channel_counts(&counts, &placements, ("bf16", "bf16"), 59);
}
