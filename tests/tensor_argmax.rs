//! Argmax along one axis (`spec/placements.md`, "Argmax").

use half::{bf16, f16};
use proptest::prelude::*;
use strideweave::tensor::{prepare, AlignedBytes, Op, Plan, Rule, TensorSpec};

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn f32_bytes(v: &[f32]) -> AlignedBytes {
    AlignedBytes::from_slice(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
}

fn run_i64(plan: &Plan, input: &[u8]) -> Vec<i64> {
    let n = plan.outputs()[0].bytes as usize;
    let mut out = AlignedBytes::zeroed(n);
    plan.run(&[input], &mut [out.as_mut_slice()]).unwrap();
    match plan.outputs()[0].spec.dtype.width() {
        4 => out
            .as_slice()
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        _ => out
            .as_slice()
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    }
}

fn argmax1(vals: &[f32]) -> i64 {
    let plan = prepare(
        Op::Argmax { axis: 0 },
        &[spec(&format!("f32[{}]", vals.len()))],
        &[spec("i32[]")],
    )
    .unwrap();
    run_i64(&plan, f32_bytes(vals).as_slice())[0]
}

#[test]
fn ties_give_the_smallest_index() {
    assert_eq!(argmax1(&[1.0, 3.0, 2.0, 3.0]), 1);
    assert_eq!(argmax1(&[5.0, 5.0, 5.0]), 0);
}

#[test]
fn negative_zero_ties_positive_zero() {
    assert_eq!(argmax1(&[-0.0, 0.0]), 0);
    assert_eq!(argmax1(&[0.0, -0.0]), 0);
    assert_eq!(argmax1(&[-1.0, -0.0, 0.0]), 1);
}

#[test]
fn nan_of_either_sign_beats_every_number_and_the_first_nan_wins() {
    let neg_nan = f32::from_bits(0xFFC0_0001);
    assert_eq!(argmax1(&[f32::INFINITY, f32::NAN, 1.0]), 1);
    assert_eq!(argmax1(&[1.0, f32::INFINITY, neg_nan, f32::NAN]), 2);
    assert_eq!(argmax1(&[f32::NAN, neg_nan]), 0);
    assert_eq!(argmax1(&[f32::NEG_INFINITY, f32::MIN]), 1);
}

#[test]
fn reduces_any_axis_and_writes_i32_or_i64_without_the_axis() {
    // [2,3,4] values chosen so every reduction has a unique answer.
    let vals: Vec<f32> = (0..24).map(|i| ((i * 7) % 24) as f32).collect();
    let input = f32_bytes(&vals);
    for (axis, out) in [(0usize, "i64[3,4]"), (1, "i32[2,4]"), (2, "i64[2,3]")] {
        let plan = prepare(Op::Argmax { axis }, &[spec("f32[2,3,4]")], &[spec(out)]).unwrap();
        let got = run_i64(&plan, input.as_slice());
        let ext = [2usize, 3, 4];
        let mut want = Vec::new();
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    let mut c = [i, j, k];
                    if c[axis] != 0 {
                        continue;
                    }
                    let (mut bi, mut best) = (0, f32::MIN);
                    for t in 0..ext[axis] {
                        c[axis] = t;
                        let v = vals[(c[0] * 3 + c[1]) * 4 + c[2]];
                        if v > best {
                            best = v;
                            bi = t;
                        }
                    }
                    want.push(bi as i64);
                }
            }
        }
        assert_eq!(got, want, "axis {axis}");
    }
}

#[test]
fn half_precision_inputs_are_compared_as_values() {
    let vals = [1.0f32, -2.0, 7.5, 7.5, 3.0];
    for dt in ["f16", "bf16"] {
        let bytes: Vec<u8> = vals
            .iter()
            .flat_map(|&v| {
                if dt == "f16" {
                    f16::from_f32(v).to_le_bytes()
                } else {
                    bf16::from_f32(v).to_le_bytes()
                }
            })
            .collect();
        let plan = prepare(
            Op::Argmax { axis: 0 },
            &[spec(&format!("{dt}[5]"))],
            &[spec("i64[]")],
        )
        .unwrap();
        assert_eq!(
            run_i64(&plan, AlignedBytes::from_slice(&bytes).as_slice()),
            vec![2]
        );
    }
}

#[test]
fn argmax_admission_rejections_name_their_rule() {
    let cases = [
        (0, "f32[0,3]", "i32[3]", Rule::EmptyReducedAxis),
        (2, "f32[2,3]", "i32[2]", Rule::AxisOutOfRange),
        (1, "f32[2,3]", "f32[2]", Rule::UnsupportedDType),
        (1, "i32[2,3]", "i32[2]", Rule::UnsupportedDType),
        (1, "f32[2,3]", "i32[3]", Rule::DimsMismatch),
        (
            1,
            "f32[2,3]",
            "i32[2] strided(4)",
            Rule::UnsupportedPlacement,
        ),
        (1, "f32[2,3] strided(0,4)", "i32[2]", Rule::ZeroStride),
        (1, "f32[1,3] strided(0,4)", "i32[1]", Rule::ZeroStride),
        (1, "f32[2,3] strided(12,-4)", "i32[2]", Rule::NegativeStride),
        (
            1,
            "f32[2,3] strided(12,6)",
            "i32[2]",
            Rule::MisalignedStride,
        ),
        (
            1,
            "f32[2,3] strided(4,4)",
            "i32[2]",
            Rule::OverlappingStrides,
        ),
    ];
    for (axis, from, to, rule) in cases {
        let e = prepare(Op::Argmax { axis }, &[spec(from)], &[spec(to)]).unwrap_err();
        assert_eq!(e.rule(), rule, "{from} axis {axis}: {e}");
    }
}

#[test]
fn an_empty_other_axis_gives_an_empty_output() {
    let plan = prepare(
        Op::Argmax { axis: 1 },
        &[spec("f32[0,3]")],
        &[spec("i64[0]")],
    )
    .unwrap();
    assert_eq!(plan.outputs()[0].bytes, 0);
    plan.run(&[&[]], &mut [&mut []]).unwrap();
}

#[test]
fn strided_positive_input_views_are_admitted() {
    // Column-major [3,2]: element (i,j) at 4*i + 12*j.
    let plan = prepare(
        Op::Argmax { axis: 0 },
        &[spec("f32[3,2] strided(4,12)")],
        &[spec("i32[2]")],
    )
    .unwrap();
    let input = f32_bytes(&[1.0, 9.0, 2.0, 8.0, 3.0, 7.0]);
    assert_eq!(run_i64(&plan, input.as_slice()), vec![1, 0]);
}

#[test]
fn padding_of_tiled_inputs_is_never_read() {
    // Pack a tensor whose values are all negative; then fill every padding byte with
    // bytes of a huge bf16 value: argmax must not see it.
    let tiled = spec("bf16[3,5,20] mla-tiled(roles=HWC, tile=(1,2,4,16), align=128)");
    let flat = spec("f32[3,5,20]");
    let vals: Vec<f32> = (0..300).map(|i| -1.0 - ((i * 37) % 101) as f32).collect();
    let pack = prepare(Op::CastTess, &[flat], &[tiled]).unwrap();
    let mut packed = AlignedBytes::zeroed(pack.outputs()[0].bytes as usize);
    pack.run(&[f32_bytes(&vals).as_slice()], &mut [packed.as_mut_slice()])
        .unwrap();
    let mut occupied = vec![false; packed.as_slice().len()];
    for h in 0..3 {
        for w in 0..5 {
            for c in 0..20 {
                for b in 0..2 {
                    occupied[tiled.byte_offset(&[h, w, c], b).unwrap() as usize] = true;
                }
            }
        }
    }
    let mut poisoned = packed.clone();
    for (i, occ) in occupied.iter().enumerate() {
        if !occ {
            poisoned.as_mut_slice()[i] = 0x7F; // 0x7F7F is a huge bf16
        }
    }
    for axis in 0..3 {
        let out = tiled.dims.without_axis(axis).unwrap();
        let to = TensorSpec::new(out, strideweave::tensor::DType::I32, Default::default()).unwrap();
        let plan = prepare(Op::Argmax { axis }, &[tiled], &[to]).unwrap();
        let flat_plan = prepare(Op::Argmax { axis }, &[flat], &[to]).unwrap();
        let want: Vec<i64> = run_i64(&flat_plan, f32_bytes(&vals).as_slice());
        assert_eq!(run_i64(&plan, packed.as_slice()), want, "axis {axis}");
        assert_eq!(
            run_i64(&plan, poisoned.as_slice()),
            want,
            "axis {axis} poisoned"
        );
    }
}

proptest! {
    /// Random contiguous inputs with NaNs, zeros of both signs and ties agree with a
    /// straightforward reference.
    #[test]
    fn matches_reference_on_random_inputs(
        rows in 1usize..5,
        vals in prop::collection::vec(
            prop_oneof![
                Just(f32::NAN), Just(-f32::NAN), Just(0.0f32), Just(-0.0f32),
                Just(1.0f32), (-3i32..3).prop_map(|x| x as f32)
            ],
            1..40,
        ),
    ) {
        let n = vals.len();
        let data: Vec<f32> = (0..rows).flat_map(|r| vals.iter().map(move |v| v * (r as f32 + 1.0))).collect();
        let plan = prepare(
            Op::Argmax { axis: 1 },
            &[spec(&format!("f32[{rows},{n}]"))],
            &[spec(&format!("i64[{rows}]"))],
        ).unwrap();
        let got = run_i64(&plan, f32_bytes(&data).as_slice());
        for r in 0..rows {
            let row = &data[r * n..(r + 1) * n];
            let want = match row.iter().position(|v| v.is_nan()) {
                Some(p) => p,
                None => {
                    let m = row.iter().cloned().fold(f32::MIN, f32::max);
                    row.iter().position(|&v| v == m).unwrap()
                }
            };
            prop_assert_eq!(got[r], want as i64);
        }
    }
}
