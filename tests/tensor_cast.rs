//! Cast admission, bindings and results (`spec/placements.md`, "Cast", "Plans and bindings").

use half::{bf16, f16};
use strideweave::tensor::{
    prepare, AlignedBytes, Op, Plan, RawInput, RawOutput, Rule, TensorError, TensorSpec,
};

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn cast_plan(from: &str, to: &str) -> Result<Plan, TensorError> {
    prepare(Op::Cast, &[spec(from)], &[spec(to)])
}

fn f32_bytes(v: &[f32]) -> AlignedBytes {
    AlignedBytes::from_slice(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}

#[test]
fn seed_example_28_byte_input_14_byte_output_leaves_row_gap_unchanged() {
    let plan = cast_plan("f32[2,3] strided(16,4)", "bf16[2,3] strided(8,2)").unwrap();
    assert_eq!(plan.inputs()[0].bytes, 28);
    assert_eq!(plan.outputs()[0].bytes, 14);
    let vals = [1.0f32, 2.5, -3.25, 1e-40, 65504.0, -0.0];
    let mut input = AlignedBytes::filled(28, 0x7F);
    for (i, v) in vals.iter().enumerate() {
        let off = (i / 3) * 16 + (i % 3) * 4;
        input.as_mut_slice()[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }
    // Capacity may exceed the span: 20 bytes of sentinel.
    let mut out = AlignedBytes::filled(20, 0xA5);
    plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap();
    let o = out.as_slice();
    for (i, v) in vals.iter().enumerate() {
        let off = (i / 3) * 8 + (i % 3) * 2;
        assert_eq!(
            o[off..off + 2],
            bf16::from_f32(*v).to_le_bytes(),
            "element {i}"
        );
    }
    // 12 bytes written; the row gap (6..8) and everything past the span stay unchanged.
    assert_eq!(o[6..8], [0xA5, 0xA5]);
    assert!(o[14..].iter().all(|&b| b == 0xA5));
}

#[test]
fn conservative_non_overlap_rule_rejects_injective_3x2_strides_8_12() {
    let e = cast_plan("f32[3,2] strided(8,12)", "f32[3,2]").unwrap_err();
    assert_eq!(e.rule(), Rule::OverlappingStrides);
    // The same view is also rejected on the output port.
    let e = cast_plan("f32[3,2]", "f32[3,2] strided(8,12)").unwrap_err();
    assert_eq!(e.rule(), Rule::OverlappingStrides);
    // Column-major strides pass (the rule sorts by stride).
    cast_plan("f32[3,2] strided(4,12)", "f32[3,2]").unwrap();
}

#[test]
fn broadcast_negative_misaligned_and_overlapping_views_are_rejected() {
    let cases = [
        ("f32[2,3] strided(0,4)", Rule::ZeroStride),
        ("f32[2,3] strided(12,-4)", Rule::NegativeStride),
        ("f32[2,3] strided(12,2)", Rule::MisalignedStride),
        ("f32[2,3] strided(8,4)", Rule::OverlappingStrides),
        ("f32[2,3] strided(4,4)", Rule::OverlappingStrides),
    ];
    for (from, rule) in cases {
        let e = cast_plan(from, "bf16[2,3]").unwrap_err();
        assert_eq!(e.rule(), rule, "{from}: {e}");
    }
    let out_cases = [
        ("bf16[2,3] strided(0,2)", Rule::ZeroStride),
        ("bf16[2,3] strided(6,-2)", Rule::NegativeStride),
        ("bf16[2,3] strided(6,3)", Rule::MisalignedStride),
        ("bf16[2,3] strided(4,2)", Rule::OverlappingStrides),
    ];
    for (to, rule) in out_cases {
        let e = cast_plan("f32[2,3]", to).unwrap_err();
        assert_eq!(e.rule(), rule, "{to}: {e}");
    }
}

#[test]
fn zero_stride_is_allowed_on_singleton_and_empty_axes() {
    let plan = cast_plan("f32[1,3] strided(0,4)", "bf16[1,3]").unwrap();
    assert_eq!(plan.inputs()[0].bytes, 12);
    let plan = cast_plan("f32[0,3] strided(0,4)", "bf16[0,3]").unwrap();
    assert_eq!(plan.inputs()[0].bytes, 0);
}

#[test]
fn cast_admission_rejections_name_their_rule() {
    let cases = [
        ("i32[2]", "f32[2]", Rule::UnsupportedDType),
        ("f32[2]", "i64[2]", Rule::UnsupportedDType),
        ("f32[2,3]", "f32[3,2]", Rule::DimsMismatch),
        (
            "f32[4294967296,4294967296]",
            "f32[4294967296,4294967296]",
            Rule::Overflow,
        ),
    ];
    for (a, b, rule) in cases {
        let e = cast_plan(a, b).unwrap_err();
        assert_eq!(e.rule(), rule, "{a} -> {b}: {e}");
    }
    let e = prepare(Op::Cast, &[spec("f32[2]")], &[]).unwrap_err();
    assert_eq!(e.rule(), Rule::PortCount);
    let e = cast_plan(
        "f32[4,16]",
        "bf16[4,16] mla-tiled(roles=HC, tile=(1,4,1,16), align=64)",
    )
    .unwrap_err();
    assert_eq!(e.rule(), Rule::UnsupportedPlacement);
    assert!(e.detail().contains("CastTess writes tiled outputs"), "{e}");
    let e = cast_plan(
        "f32[4,16] mla-tiled(roles=HC, tile=(1,4,1,16), align=64)",
        "bf16[4,16]",
    )
    .unwrap_err();
    assert!(e.detail().contains("CastUntess reads tiled inputs"), "{e}");
}

#[test]
fn every_float_pair_converts_bit_exactly_through_f32() {
    let vals: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.7,
        1e-8,
        -6.1e-5,
        1e-40,
        65519.0,
        65520.0,
        1e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0x3F80_8000), // halfway between two bf16 values: ties to even
        f32::from_bits(0x3F81_8000),
    ];
    let n = vals.len();
    for (from, to) in [
        ("f32", "bf16"),
        ("f32", "f16"),
        ("f32", "f32"),
        ("bf16", "f32"),
        ("f16", "f32"),
        ("f16", "bf16"),
        ("bf16", "f16"),
        ("bf16", "bf16"),
        ("f16", "f16"),
    ] {
        // Build the input in `from` by half's own conversion.
        let input: Vec<u8> = vals
            .iter()
            .flat_map(|&v| match from {
                "f32" => v.to_le_bytes().to_vec(),
                "bf16" => bf16::from_f32(v).to_le_bytes().to_vec(),
                _ => f16::from_f32(v).to_le_bytes().to_vec(),
            })
            .collect();
        let input = AlignedBytes::from_slice(&input);
        let plan = cast_plan(&format!("{from}[{n}]"), &format!("{to}[{n}]")).unwrap();
        let mut out = AlignedBytes::zeroed(plan.outputs()[0].bytes as usize);
        plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
            .unwrap();
        let w = if from == "f32" { 4 } else { 2 };
        let ow = if to == "f32" { 4 } else { 2 };
        for i in 0..n {
            let s = &input.as_slice()[i * w..i * w + w];
            let x: f32 = match from {
                "f32" => f32::from_le_bytes(s.try_into().unwrap()),
                "bf16" => bf16::from_le_bytes(s.try_into().unwrap()).to_f32(),
                _ => f16::from_le_bytes(s.try_into().unwrap()).to_f32(),
            };
            let got = &out.as_slice()[i * ow..i * ow + ow];
            if x.is_nan() {
                let y = match to {
                    "f32" => f32::from_le_bytes(got.try_into().unwrap()),
                    "bf16" => bf16::from_le_bytes(got.try_into().unwrap()).to_f32(),
                    _ => f16::from_le_bytes(got.try_into().unwrap()).to_f32(),
                };
                assert!(y.is_nan(), "{from}->{to}: NaN stays NaN");
                continue;
            }
            let want: Vec<u8> = if from == to {
                s.to_vec()
            } else {
                match to {
                    "f32" => x.to_le_bytes().to_vec(),
                    "bf16" => bf16::from_f32(x).to_le_bytes().to_vec(),
                    _ => f16::from_f32(x).to_le_bytes().to_vec(),
                }
            };
            assert_eq!(got, &want[..], "{from}->{to} element {i} ({x})");
        }
    }
}

#[test]
fn f16_overflow_gives_infinity_and_subnormals_are_not_flushed() {
    let plan = cast_plan("f32[3]", "f16[3]").unwrap();
    let input = f32_bytes(&[1e6, 3e-7, -1e-39]);
    let mut out = AlignedBytes::zeroed(6);
    plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap();
    let o = out.as_slice();
    assert_eq!(f16::from_le_bytes([o[0], o[1]]), f16::INFINITY);
    assert_eq!(f16::from_le_bytes([o[2], o[3]]), f16::from_f32(3e-7));
    let h = f16::from_le_bytes([o[2], o[3]]);
    assert!(
        h.to_bits() & 0x7C00 == 0 && h.to_bits() != 0,
        "subnormal kept"
    );
    let plan = cast_plan("f32[1]", "bf16[1]").unwrap();
    let input = f32_bytes(&[1e-39]);
    let mut out = AlignedBytes::zeroed(2);
    plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap();
    let b = bf16::from_le_bytes([out.as_slice()[0], out.as_slice()[1]]);
    assert!(b.to_bits() & 0x7F80 == 0 && b.to_bits() != 0 && b == bf16::from_f32(1e-39));
}

#[test]
fn strided_to_contiguous_and_transposed_views_convert_every_element() {
    // Transpose: input column-major, output row-major.
    let plan = cast_plan("f32[3,4] strided(4,12)", "bf16[3,4]").unwrap();
    let vals: Vec<f32> = (0..12).map(|i| i as f32 * 1.5 - 4.0).collect();
    let input = f32_bytes(&vals);
    let mut out = AlignedBytes::zeroed(24);
    plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap();
    for i in 0..3 {
        for j in 0..4 {
            let v = vals[j * 3 + i];
            let o = (i * 4 + j) * 2;
            assert_eq!(out.as_slice()[o..o + 2], bf16::from_f32(v).to_le_bytes());
        }
    }
}

#[test]
fn empty_tensors_need_zero_bytes_and_admit_zero_capacity_bindings() {
    let plan = cast_plan("f32[0,1000000000000000000]", "bf16[0,1000000000000000000]").unwrap();
    assert_eq!(plan.inputs()[0].bytes, 0);
    assert_eq!(plan.outputs()[0].bytes, 0);
    plan.run(&[&[]], &mut [&mut []]).unwrap();
}

#[test]
fn capacity_below_the_span_is_rejected_and_output_is_unchanged() {
    let plan = cast_plan("f32[2,3] strided(16,4)", "bf16[2,3] strided(8,2)").unwrap();
    let input = AlignedBytes::zeroed(28);
    let mut out = AlignedBytes::filled(14, 0x5A);
    let e = plan
        .run(&[&input.as_slice()[..27]], &mut [out.as_mut_slice()])
        .unwrap_err();
    assert_eq!(e.rule(), Rule::CapacityTooSmall);
    assert!(out.as_slice().iter().all(|&b| b == 0x5A));
    let mut small = AlignedBytes::filled(13, 0x5A);
    let e = plan
        .run(&[input.as_slice()], &mut [small.as_mut_slice()])
        .unwrap_err();
    assert_eq!(e.rule(), Rule::CapacityTooSmall);
    assert!(small.as_slice().iter().all(|&b| b == 0x5A));
    // A non-empty tensor never accepts a zero-capacity binding.
    let e = plan.run(&[&[]], &mut [out.as_mut_slice()]).unwrap_err();
    assert_eq!(e.rule(), Rule::CapacityTooSmall);
}

#[test]
fn misaligned_bindings_are_rejected_before_any_write() {
    let plan = cast_plan("f32[2]", "f32[2]").unwrap();
    let input = AlignedBytes::zeroed(12);
    let mut out = AlignedBytes::filled(12, 0x11);
    let e = plan
        .run(
            &[&input.as_slice()[1..9]],
            &mut [&mut out.as_mut_slice()[..8]],
        )
        .unwrap_err();
    assert_eq!(e.rule(), Rule::MisalignedAddress);
    let e = plan
        .run(
            &[&input.as_slice()[..8]],
            &mut [&mut out.as_mut_slice()[2..10]],
        )
        .unwrap_err();
    assert_eq!(e.rule(), Rule::MisalignedAddress);
    assert!(out.as_slice().iter().all(|&b| b == 0x11));
    let e = plan.run(&[input.as_slice()], &mut []).unwrap_err();
    assert_eq!(e.rule(), Rule::PortCount);
}

#[test]
fn raw_api_rejects_intersecting_bounding_spans_even_when_elements_interleave() {
    // Input elements at bytes 0..4 and 16..20, output elements at 8..12 and 24..28:
    // the touched bytes are disjoint, but the bounding spans [0,20) and [8,28) intersect.
    let plan = cast_plan("f32[2] strided(16)", "f32[2] strided(16)").unwrap();
    let mut buf = AlignedBytes::filled(32, 0x33);
    let p = buf.as_mut_slice().as_mut_ptr();
    // SAFETY: both bindings lie inside `buf` (32 bytes), which outlives the call.
    let e = unsafe { plan.run_raw(&[RawInput::new(p, 20)], &[RawOutput::new(p.add(8), 20)]) }
        .unwrap_err();
    assert_eq!(e.rule(), Rule::IntersectingSpans);
    assert!(buf.as_slice().iter().all(|&b| b == 0x33));
    // Disjoint spans are accepted.
    let mut other = AlignedBytes::zeroed(20);
    let q = other.as_mut_slice().as_mut_ptr();
    // SAFETY: `buf` and `other` are distinct live allocations of at least 20 bytes.
    unsafe { plan.run_raw(&[RawInput::new(p, 20)], &[RawOutput::new(q, 20)]) }.unwrap();
    assert_eq!(other.as_slice()[16..20], [0x33; 4]);
}

#[test]
fn raw_api_rejects_address_overflow_and_null_addresses() {
    let plan = cast_plan("f32[2]", "f32[2]").unwrap();
    let mut out = AlignedBytes::filled(8, 0x44);
    let o = RawOutput::new(out.as_mut_slice().as_mut_ptr(), 8);
    let far = (usize::MAX - 3) as *const u8;
    // SAFETY: the call rejects the input binding before reading or writing anything.
    let e = unsafe { plan.run_raw(&[RawInput::new(far, 8)], &[o]) }.unwrap_err();
    assert_eq!(e.rule(), Rule::AddressOverflow);
    // SAFETY: as above: a null non-empty binding is rejected before any access.
    let e = unsafe { plan.run_raw(&[RawInput::new(std::ptr::null(), 8)], &[o]) }.unwrap_err();
    assert_eq!(e.rule(), Rule::NullAddress);
    assert!(out.as_slice().iter().all(|&b| b == 0x44));
}

#[test]
fn large_contiguous_cast_matches_half_elementwise() {
    // Long enough to exercise the SIMD body and the scalar tail.
    let n = 1000 + 13;
    let vals: Vec<f32> = (0..n)
        .map(|i| f32::from_bits((i as u32).wrapping_mul(2_654_435_761)))
        .collect();
    let input = f32_bytes(&vals);
    for to in ["bf16", "f16"] {
        let plan = cast_plan(&format!("f32[{n}]"), &format!("{to}[{n}]")).unwrap();
        let mut out = AlignedBytes::zeroed(2 * n);
        plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
            .unwrap();
        for (i, v) in vals.iter().enumerate() {
            let want = if to == "bf16" {
                bf16::from_f32(*v).to_bits()
            } else {
                f16::from_f32(*v).to_bits()
            };
            let got = u16::from_le_bytes([out.as_slice()[2 * i], out.as_slice()[2 * i + 1]]);
            assert_eq!(got, want, "{to} element {i}: {:#x}", v.to_bits());
        }
    }
}
