//! Dims, dtypes, the text form and the span/offset formulas of `seeds/tensor-storage.txt`
//! and `spec/placements.md`.

use proptest::prelude::*;
use strideweave::tensor::{DType, Dims, Placement, Rule, TensorSpec};

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn rank_is_kept_not_padded_to_six() {
    let d = Dims::new(&[2, 3]).unwrap();
    assert_eq!(d.rank(), 2);
    assert_eq!(d.extents(), &[2, 3]);
    assert_ne!(d, Dims::new(&[1, 1, 1, 1, 2, 3]).unwrap());
    assert_eq!(spec("f32[2,3]").dims.rank(), 2);
}

#[test]
fn scalar_has_one_element_and_needs_one_scalar() {
    let s = spec("bf16[]");
    assert_eq!(s.dims.rank(), 0);
    assert_eq!(s.dims.element_count().unwrap(), 1);
    assert_eq!(s.required_bytes().unwrap(), 2);
    assert_eq!(spec("f32[] strided()").required_bytes().unwrap(), 4);
}

#[test]
fn seven_dims_are_rejected_as_too_many_dims() {
    assert_eq!(Dims::new(&[1; 7]).unwrap_err().rule(), Rule::TooManyDims);
    assert_eq!(Dims::new(&[1; 6]).unwrap().rank(), 6);
    let e = "f32[1,2,3,4,5,6,7]".parse::<TensorSpec>().unwrap_err();
    assert_eq!(e.rule(), Rule::TooManyDims);
}

#[test]
fn negative_extents_are_rejected() {
    let e = "f32[2,-1]".parse::<TensorSpec>().unwrap_err();
    assert_eq!(e.rule(), Rule::NegativeExtent);
}

#[test]
fn bf16_and_f16_are_distinct_types() {
    assert_ne!(DType::BF16, DType::F16);
    assert_ne!(spec("bf16[2]"), spec("f16[2]"));
    assert_eq!(DType::BF16.width(), DType::F16.width());
}

#[test]
fn empty_tensors_need_zero_bytes_in_every_placement() {
    for s in [
        "f32[0,1000000000000000000]",
        "f32[1000000000000000000,0] strided(4000000000000000000,4)",
        "bf16[0,4096,4096,4096] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "f16[4096,0,4096] mla-cblocked(tile=(4,4), align=128)",
    ] {
        let s = spec(s);
        assert_eq!(s.dims.element_count().unwrap(), 0);
        assert_eq!(s.required_bytes().unwrap(), 0, "{s}");
    }
}

#[test]
fn contiguous_payload_is_element_count_times_width() {
    assert_eq!(spec("f32[2,3]").required_bytes().unwrap(), 24);
    assert_eq!(spec("bf16[5,7]").required_bytes().unwrap(), 70);
    assert_eq!(spec("i64[3]").required_bytes().unwrap(), 24);
}

#[test]
fn strided_span_is_width_plus_sum_of_extent_minus_one_times_stride() {
    // The seed's example: FP32 {2,3} strides {16,4} -> 28 bytes; BF16 {8,2} -> 14 bytes.
    assert_eq!(spec("f32[2,3] strided(16,4)").required_bytes().unwrap(), 28);
    assert_eq!(spec("bf16[2,3] strided(8,2)").required_bytes().unwrap(), 14);
    assert_eq!(spec("f32[4,1] strided(4,0)").required_bytes().unwrap(), 16);
}

#[test]
fn size_arithmetic_overflow_is_an_error_naming_the_value() {
    let e = spec("f32[4294967296,4294967296]")
        .required_bytes()
        .unwrap_err();
    assert_eq!(e.rule(), Rule::Overflow);
    assert!(e.to_string().contains("4294967296"), "{e}");
    let e = spec("f32[4] strided(9223372036854775804)")
        .required_bytes()
        .unwrap_err();
    assert_eq!(e.rule(), Rule::Overflow);
}

#[test]
fn tiled_required_bytes_are_tiles_times_aligned_tile_bytes() {
    // 2 H tiles x 2 W tiles x 2 C tiles, tile 1*4*4*16*2 = 512 bytes.
    let s = spec("bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    assert_eq!(s.required_bytes().unwrap(), 8 * 512);
    // Rounded up: 1*2*1*2*4 = 16 raw bytes -> 32; 1 H tile x 2 C tiles, 3 outer.
    let s = spec("f32[3,2,3] mla-tiled(roles=.HC, tile=(1,2,1,2), align=32)");
    assert_eq!(s.required_bytes().unwrap(), 3 * 2 * 32);
    // CBlocked: 2 channel blocks per tile, 2x2 pixels, 16 lanes, 2 bytes = 256.
    let s = spec("bf16[3,3,20] mla-cblocked(tile=(2,2), align=128)");
    assert_eq!(s.required_bytes().unwrap(), 4 * 256);
    let s = spec("f32[2,1,1,17] mla-cblocked(tile=(1,1), align=512)");
    assert_eq!(s.required_bytes().unwrap(), 2 * 512);
}

#[test]
fn mla_tiled_offsets_follow_cdhw_tile_order_and_bf16_byte_planes() {
    let s = spec("bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    // h=4 w=5 c=17: tiles (ct=1, ht=1, wt=1) = 7; pixel (0,1) = 1; channel slot 1.
    assert_eq!(s.byte_offset(&[0, 4, 5, 17], 0).unwrap(), 7 * 512 + 32 + 1);
    assert_eq!(
        s.byte_offset(&[0, 4, 5, 17], 1).unwrap(),
        7 * 512 + 32 + 16 + 1
    );
    // Non-BF16 types store each element little-endian.
    let s = spec("f32[2,3] mla-tiled(roles=HC, tile=(1,2,1,2), align=32)");
    assert_eq!(s.byte_offset(&[1, 2], 3).unwrap(), 32 + 8 + 3);
    // Roles in any order: C before H in logical order.
    let s = spec("f32[3,2] mla-tiled(roles=CH, tile=(1,2,1,2), align=32)");
    assert_eq!(s.byte_offset(&[2, 1], 0).unwrap(), 32 + 8);
}

#[test]
fn mla_cblocked_offsets_use_c16_block_h_w_lane_order_and_stripes() {
    let s = spec("bf16[3,3,20] mla-cblocked(tile=(2,2), align=128)");
    // h=2 w=1 c=17: tile (1,0) = 2; block 1, pixel 1 -> group 5; lane 1.
    assert_eq!(s.byte_offset(&[2, 1, 17], 0).unwrap(), 2 * 256 + 5 * 32 + 1);
    assert_eq!(
        s.byte_offset(&[2, 1, 17], 1).unwrap(),
        2 * 256 + 5 * 32 + 16 + 1
    );
    let s = spec("f32[2,3,3,20] mla-cblocked(tile=(2,2), align=128)");
    // Outer index 1 comes after 4 tiles of 2*4*16*4 = 512 bytes.
    assert_eq!(s.byte_offset(&[1, 0, 0, 1], 2).unwrap(), 4 * 512 + 4 + 2);
}

#[test]
fn mla_tiled_and_cblocked_are_different_byte_arrangements() {
    let t = spec("bf16[2,4,32] mla-tiled(roles=HWC, tile=(1,2,2,16), align=1)");
    let c = spec("bf16[2,4,32] mla-cblocked(tile=(2,2), align=1)");
    assert_eq!(t.required_bytes().unwrap(), c.required_bytes().unwrap());
    assert_ne!(
        t.byte_offset(&[0, 0, 16], 0).unwrap(),
        c.byte_offset(&[0, 0, 16], 0).unwrap()
    );
}

#[test]
fn text_form_example_round_trips() {
    let text = "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)";
    let s = spec(text);
    assert_eq!(s.to_string(), text);
    assert!(matches!(s.placement, Placement::MlaTiled(_)));
    // Whitespace after commas and between dims and placement; contiguous is the default.
    let a = spec("f32[2, 3]   strided(16, 4)");
    assert_eq!(a, spec("f32[2,3] strided(16,4)"));
    assert_eq!(spec("f32[2,3]"), spec("f32[2,3] contiguous"));
}

#[test]
fn text_form_rejections_name_their_rule() {
    let cases = [
        ("f32[2,3] strided(4)", Rule::StrideCount),
        (
            "f32[2,3] mla-tiled(roles=HH, tile=(1,2,1,1), align=4)",
            Rule::RoleTwice,
        ),
        (
            "f32[2,3] mla-tiled(roles=.HC, tile=(1,2,1,2), align=4)",
            Rule::RolesLength,
        ),
        (
            "f32[2,3] mla-tiled(roles=.., tile=(1,1,1,1), align=4)",
            Rule::NoRole,
        ),
        (
            "f32[2,3] mla-tiled(roles=HC, tile=(1,2,1,2), align=48)",
            Rule::AlignNotPowerOfTwo,
        ),
        (
            "f32[2,3] mla-tiled(roles=HC, tile=(2,2,1,2), align=4)",
            Rule::AbsentRoleTile,
        ),
        (
            "f32[2,3] mla-tiled(roles=HC, tile=(1,0,1,2), align=4)",
            Rule::ZeroTile,
        ),
        (
            "f32[2,3] mla-cblocked(tile=(2,2), align=64)",
            Rule::RankBelowThree,
        ),
        (
            "f32[2,3,4] mla-cblocked(tile=(2,2), align=3)",
            Rule::AlignNotPowerOfTwo,
        ),
        ("f64[2]", Rule::Syntax),
        ("f32[2] sideways", Rule::Syntax),
        ("f32[99999999999999999999]", Rule::Overflow),
    ];
    for (text, rule) in cases {
        let e = text.parse::<TensorSpec>().unwrap_err();
        assert_eq!(e.rule(), rule, "{text}: {e}");
        assert!(e.to_string().starts_with(rule.name()), "{e}");
    }
}

fn arb_spec() -> impl Strategy<Value = TensorSpec> {
    let dtype = prop_oneof![
        Just("f32"),
        Just("f16"),
        Just("bf16"),
        Just("i32"),
        Just("i64")
    ];
    (
        dtype,
        prop::collection::vec(0u64..6, 0..=6),
        0usize..4,
        any::<u64>(),
    )
        .prop_map(|(dt, dims, kind, seed)| {
            let rank = dims.len();
            let dims_s = dims
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let pick = |i: u64| seed.rotate_left(i as u32 * 7);
            let placement = match kind {
                0 => "contiguous".to_string(),
                1 => {
                    let s: Vec<String> = (0..rank)
                        .map(|i| ((pick(i as u64) % 200) as i64 - 20).to_string())
                        .collect();
                    format!("strided({})", s.join(","))
                }
                2 if rank >= 1 => {
                    // Roles: a random subset of DHWC placed on random axes.
                    let mut roles = vec!['.'; rank];
                    let mut tile = [1u64; 4];
                    for (r, ch) in "DHWC".chars().enumerate() {
                        let ax = (pick(r as u64 + 10) % rank as u64) as usize;
                        if roles[ax] == '.' && pick(r as u64 + 20) % 3 != 0 {
                            roles[ax] = ch;
                            tile[r] = 1 + pick(r as u64 + 30) % 5;
                        }
                    }
                    if roles.iter().all(|&c| c == '.') {
                        roles[0] = 'C';
                        tile[3] = 3;
                    }
                    let roles: String = roles.into_iter().collect();
                    format!(
                        "mla-tiled(roles={roles}, tile=({},{},{},{}), align={})",
                        tile[0],
                        tile[1],
                        tile[2],
                        tile[3],
                        1u64 << (pick(40) % 8)
                    )
                }
                _ if rank >= 3 => format!(
                    "mla-cblocked(tile=({},{}), align={})",
                    1 + pick(50) % 4,
                    1 + pick(51) % 4,
                    1u64 << (pick(52) % 9)
                ),
                _ => "contiguous".to_string(),
            };
            format!("{dt}[{dims_s}] {placement}").parse().unwrap()
        })
}

proptest! {
    #[test]
    fn text_form_round_trips(s in arb_spec()) {
        let text = s.to_string();
        prop_assert_eq!(text.parse::<TensorSpec>().unwrap(), s);
    }

    /// The placement's byte-level `Layout` (built with the layout algebra) gives the same
    /// offsets as the kernels' direct formula, and every offset lies below the span.
    #[test]
    fn layout_based_offsets_equal_the_direct_formula(s in arb_spec()) {
        let Ok(span) = s.required_bytes() else { return Ok(()) }; // negative strides
        let ext = s.dims.extents().to_vec();
        let n = s.dims.element_count().unwrap();
        let mut coord = vec![0u64; ext.len()];
        for i in 0..n {
            let mut r = i;
            for ax in (0..ext.len()).rev() {
                coord[ax] = r % ext[ax];
                r /= ext[ax];
            }
            for b in 0..s.dtype.width() {
                let via_layout = s.byte_offset(&coord, b).unwrap();
                let direct = s.byte_offset_formula(&coord, b).unwrap();
                prop_assert_eq!(via_layout, direct);
                prop_assert!(via_layout < span);
            }
        }
        if let (Some(l), Placement::Contiguous | Placement::Strided(_)) =
            (s.byte_layout().unwrap(), s.placement)
        {
            prop_assert_eq!(l.cosize(), span);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Library code never panics on user input: any spec pair, any op, any buffers give
    /// `Ok` or an error naming a rule.
    #[test]
    fn prepare_and_run_never_panic_on_any_specs(a in arb_spec(), b in arb_spec(), axis in 0usize..7, op in 0u8..4, cap in 0usize..4096) {
        use strideweave::tensor::{prepare, AlignedBytes, Op};
        let op = match op { 0 => Op::Cast, 1 => Op::CastTess, 2 => Op::CastUntess, _ => Op::Argmax { axis } };
        let input = AlignedBytes::filled(cap, 0x3C);
        let mut out = AlignedBytes::filled(cap, 0);
        if let Ok(plan) = prepare(op, &[a], &[b]) {
            let _ = plan.run(&[input.as_slice()], &mut [out.as_mut_slice()]);
        }
        if let Ok(plan) = prepare(op, &[a], &[a]) {
            let _ = plan.run(&[input.as_slice()], &mut [out.as_mut_slice()]);
        }
    }
}
