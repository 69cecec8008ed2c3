//! `Plan::run_raw` (raw-pointer bindings) rejects every invalid binding before writing:
//! capacity, alignment, address overflow, null with non-zero capacity, cross-port
//! bounding-span intersection, zero capacity where the op admits no empty tensor, port
//! counts. Each rejection is proven to leave every output byte (the whole arena the
//! bindings live in) unchanged, for every op (placements spec, "Plans and bindings";
//! issue 6: raw-pointer bindings).

use strideweave::tensor::{
    prepare, AlignedBytes, Op, Plan, RawInput, RawOutput, Rule, TensorError, TensorSpec,
};

fn spec(s: &str) -> TensorSpec {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// One plan per op, each with a non-empty input and output.
fn plans() -> Vec<(&'static str, Plan)> {
    let p = |op, a: &str, b: &str| prepare(op, &[spec(a)], &[spec(b)]).unwrap();
    vec![
        ("cast", p(Op::Cast, "f32[3,5] strided(40,8)", "bf16[3,5]")),
        (
            "cast-tess",
            p(
                Op::CastTess,
                "f32[2,3,20]",
                "bf16[2,3,20] mla-tiled(roles=HWC, tile=(1,2,2,16), align=64)",
            ),
        ),
        (
            "cast-untess",
            p(
                Op::CastUntess,
                "f16[2,3,20] mla-cblocked(tile=(2,2), align=32)",
                "f32[2,3,20]",
            ),
        ),
        ("argmax", p(Op::Argmax { axis: 1 }, "f32[4,6]", "i64[4]")),
    ]
}

const ARENA: usize = 8192;
const SENTINEL: u8 = 0x5A;

/// An arena whose first half holds deterministic input bytes (every element a finite
/// number) and whose second half is sentinel-filled output storage.
fn arena() -> AlignedBytes {
    let mut a = AlignedBytes::filled(ARENA, SENTINEL);
    for (i, c) in a.as_mut_slice()[..ARENA / 2]
        .chunks_exact_mut(4)
        .enumerate()
    {
        c.copy_from_slice(&(i as f32 * 0.25 - 7.0).to_le_bytes());
    }
    a
}

/// Runs `plan` on raw bindings at arena offsets (`None` = a null pointer) and returns the
/// error, asserting that the whole arena is unchanged.
fn rejected(plan: &Plan, input: (Option<usize>, usize), output: (Option<usize>, usize)) -> Rule {
    let mut a = arena();
    let before = a.as_slice().to_vec();
    let base = a.as_mut_slice().as_mut_ptr();
    let at = |o: Option<usize>| o.map_or(std::ptr::null_mut(), |o| base.wrapping_add(o));
    let r = {
        let i = RawInput::new(at(input.0), input.1);
        let o = RawOutput::new(at(output.0), output.1);
        // SAFETY: non-null bindings lie inside `a` (offset + capacity <= ARENA, asserted
        // by `in_arena`), which outlives the call and is touched by nothing else; null
        // bindings are never dereferenced (rejected, or zero bytes).
        unsafe { plan.run_raw(&[i], &[o]) }
    };
    let e: TensorError = r.expect_err("binding must be rejected");
    assert_eq!(
        a.as_slice(),
        &before[..],
        "rejected run changed a byte ({e})"
    );
    e.rule()
}

fn in_arena(off: usize, cap: usize) -> (Option<usize>, usize) {
    assert!(off + cap <= ARENA);
    (Some(off), cap)
}

fn req(plan: &Plan) -> (usize, usize, usize, usize) {
    let (i, o) = (plan.inputs()[0], plan.outputs()[0]);
    (
        i.bytes as usize,
        o.bytes as usize,
        i.align as usize,
        o.align as usize,
    )
}

const OUT: usize = ARENA / 2;

#[test]
fn run_raw_rejects_short_capacity_on_either_port_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, _, _) = req(&plan);
        let good_in = in_arena(0, ri);
        let good_out = in_arena(OUT, ro);
        for short in [0, 1, ri - 1] {
            let r = rejected(&plan, in_arena(0, short), good_out);
            assert_eq!(r, Rule::CapacityTooSmall, "{name}: input capacity {short}");
        }
        for short in [0, 1, ro - 1] {
            let r = rejected(&plan, good_in, in_arena(OUT, short));
            assert_eq!(r, Rule::CapacityTooSmall, "{name}: output capacity {short}");
        }
    }
}

#[test]
fn run_raw_rejects_misaligned_addresses_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, wi, wo) = req(&plan);
        for k in 1..wi {
            let r = rejected(&plan, in_arena(k, ri), in_arena(OUT, ro));
            assert_eq!(r, Rule::MisalignedAddress, "{name}: input at +{k}");
        }
        for k in 1..wo {
            let r = rejected(&plan, in_arena(0, ri), in_arena(OUT + k, ro));
            assert_eq!(r, Rule::MisalignedAddress, "{name}: output at +{k}");
        }
    }
}

#[test]
fn run_raw_rejects_address_overflow_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, wi, wo) = req(&plan);
        let mut a = arena();
        let before = a.as_slice().to_vec();
        let base = a.as_mut_slice().as_mut_ptr();
        // Aligned addresses so close to the top that address + capacity wraps.
        let top_in = std::ptr::without_provenance::<u8>(usize::MAX - (usize::MAX % wi) - wi + 1);
        let top_out =
            std::ptr::without_provenance_mut::<u8>(usize::MAX - (usize::MAX % wo) - wo + 1);
        // SAFETY: the wrapping bindings are rejected before any access; the others lie
        // inside `a`.
        let e1 = unsafe {
            plan.run_raw(
                &[RawInput::new(top_in, ri)],
                &[RawOutput::new(base.add(OUT), ro)],
            )
        }
        .unwrap_err();
        // SAFETY: as above.
        let e2 =
            unsafe { plan.run_raw(&[RawInput::new(base, ri)], &[RawOutput::new(top_out, ro)]) }
                .unwrap_err();
        assert_eq!(e1.rule(), Rule::AddressOverflow, "{name}: input");
        assert_eq!(e2.rule(), Rule::AddressOverflow, "{name}: output");
        assert_eq!(a.as_slice(), &before[..], "{name}");
    }
}

#[test]
fn run_raw_rejects_null_with_nonzero_capacity_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, _, _) = req(&plan);
        let r = rejected(&plan, (None, ri), in_arena(OUT, ro));
        assert_eq!(r, Rule::NullAddress, "{name}: input");
        let r = rejected(&plan, in_arena(0, ri), (None, ro));
        assert_eq!(r, Rule::NullAddress, "{name}: output");
    }
}

#[test]
fn run_raw_rejects_intersecting_bounding_spans_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, wi, wo) = req(&plan);
        let step = wi.max(wo);
        // Output starting inside the input span, input starting inside the output span,
        // the same start, one span containing the other: all rejected.
        let last_in = (ri - 1) / step * step;
        let cases = [
            (0, last_in),
            (step * 2, 0),
            (0, 0),
            (step, (ri / 2) / step * step),
        ];
        for (i, o) in cases {
            let r = rejected(&plan, in_arena(i, ri), in_arena(o, ro));
            assert_eq!(r, Rule::IntersectingSpans, "{name}: input@{i} output@{o}");
        }
    }
}

#[test]
fn run_raw_rejects_interleaved_strided_spans_whose_elements_never_meet() {
    // Element bytes interleave without meeting: rows of 8 bytes in the input, each input
    // row followed by an 8-byte output row. The bounding spans intersect: rejected.
    let a = spec("f32[4,2] strided(16,4)");
    let b = spec("f32[4,2] strided(16,4)");
    let plan = prepare(Op::Cast, &[a], &[b]).unwrap();
    assert_eq!(plan.inputs()[0].bytes, 56);
    let r = rejected(&plan, in_arena(0, 56), in_arena(8, 56));
    assert_eq!(r, Rule::IntersectingSpans);
}

#[test]
fn run_raw_accepts_adjacent_spans_and_writes_only_the_output_span() {
    // The positive control of the rejection tests: touching spans are disjoint.
    for (name, plan) in plans() {
        let (ri, ro, _, wo) = req(&plan);
        let o = ri.div_ceil(64) * 64;
        let mut a = arena();
        let before = a.as_slice().to_vec();
        let base = a.as_mut_slice().as_mut_ptr();
        assert!(o % wo == 0 && o + ro + 64 <= ARENA);
        // SAFETY: input [0, ri) and output [o, o + ro) lie inside `a`, disjoint.
        unsafe {
            plan.run_raw(
                &[RawInput::new(base, ri)],
                &[RawOutput::new(base.add(o), ro)],
            )
        }
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = a.as_slice();
        assert_eq!(s[..o], before[..o], "{name}: input and gap unchanged");
        assert_eq!(
            s[o + ro..],
            before[o + ro..],
            "{name}: nothing after the span"
        );
        assert_ne!(
            s[o..o + ro],
            before[o..o + ro],
            "{name}: the output was written"
        );
        // Same bytes as the safe API.
        let mut out = AlignedBytes::filled(ro, SENTINEL);
        plan.run(&[&before[..ri]], &mut [out.as_mut_slice()])
            .unwrap();
        assert_eq!(&s[o..o + ro], out.as_slice(), "{name}: raw == safe");
    }
}

#[test]
fn zero_capacity_is_accepted_only_where_the_op_admits_empty_tensors() {
    // Ops whose tensors are empty need zero bytes: null zero-capacity bindings run as no-ops.
    let empty = [
        (Op::Cast, "f32[0,5]", "bf16[0,5] strided(10,2)"),
        (
            Op::CastTess,
            "f32[3,0,16]",
            "bf16[3,0,16] mla-tiled(roles=HWC, tile=(1,4,4,16), align=64)",
        ),
        (
            Op::CastUntess,
            "bf16[2,2,0] mla-cblocked(tile=(2,2), align=64)",
            "f32[2,2,0]",
        ),
        (Op::Argmax { axis: 1 }, "f32[0,4]", "i32[0]"),
    ];
    for (op, a, b) in empty {
        let plan = prepare(op, &[spec(a)], &[spec(b)]).unwrap();
        assert_eq!((plan.inputs()[0].bytes, plan.outputs()[0].bytes), (0, 0));
        // SAFETY: zero-capacity bindings are never dereferenced.
        unsafe {
            plan.run_raw(
                &[RawInput::new(std::ptr::null(), 0)],
                &[RawOutput::new(std::ptr::null_mut(), 0)],
            )
        }
        .unwrap_or_else(|e| panic!("{a} -> {b}: {e}"));
        // Non-empty capacity on an empty port is still checked for null.
        let mut a_ = arena();
        let base = a_.as_mut_slice().as_mut_ptr();
        // SAFETY: the output binding lies inside the arena; the null input is rejected.
        let e = unsafe {
            plan.run_raw(
                &[RawInput::new(std::ptr::null(), 4)],
                &[RawOutput::new(base.add(OUT), 4)],
            )
        }
        .unwrap_err();
        assert_eq!(e.rule(), Rule::NullAddress);
    }
    // Argmax over an empty reduced axis is not admitted at all.
    let e = prepare(
        Op::Argmax { axis: 0 },
        &[spec("f32[0,4]")],
        &[spec("i32[4]")],
    )
    .unwrap_err();
    assert_eq!(e.rule(), Rule::EmptyReducedAxis);
    // Where the tensors are not empty, zero capacity (null or not) is too small.
    for (name, plan) in plans() {
        let (ri, ro, _, _) = req(&plan);
        assert_eq!(
            rejected(&plan, (None, 0), in_arena(OUT, ro)),
            Rule::CapacityTooSmall,
            "{name}: null zero-capacity input"
        );
        assert_eq!(
            rejected(&plan, in_arena(0, ri), (None, 0)),
            Rule::CapacityTooSmall,
            "{name}: null zero-capacity output"
        );
        assert_eq!(
            rejected(&plan, in_arena(0, ri), in_arena(OUT, 0)),
            Rule::CapacityTooSmall,
            "{name}: zero-capacity output"
        );
    }
}

#[test]
fn run_raw_rejects_wrong_binding_counts_and_writes_nothing() {
    for (name, plan) in plans() {
        let (ri, ro, _, _) = req(&plan);
        let mut a = arena();
        let before = a.as_slice().to_vec();
        let base = a.as_mut_slice().as_mut_ptr();
        let i = RawInput::new(base, ri);
        let o = RawOutput::new(base.wrapping_add(OUT), ro);
        // SAFETY: every binding lies inside `a`; the calls are rejected before any access.
        let e = unsafe { plan.run_raw(&[], &[o]) }.unwrap_err();
        assert_eq!(e.rule(), Rule::PortCount, "{name}");
        // SAFETY: as above.
        let e = unsafe { plan.run_raw(&[i, i], &[o]) }.unwrap_err();
        assert_eq!(e.rule(), Rule::PortCount, "{name}");
        // SAFETY: as above.
        let e = unsafe { plan.run_raw(&[i], &[o, o]) }.unwrap_err();
        assert_eq!(e.rule(), Rule::PortCount, "{name}");
        assert_eq!(a.as_slice(), &before[..], "{name}");
    }
}

#[test]
fn run_raw_rejects_a_requirement_no_allocation_can_hold() {
    // 2^61 f32 elements need 2^63 bytes > isize::MAX: no real storage can back it, so even
    // a binding that claims that capacity is rejected (never turned into a slice).
    let plan = prepare(
        Op::Cast,
        &[spec("f32[2305843009213693952]")],
        &[spec("f32[2305843009213693952]")],
    )
    .unwrap();
    assert_eq!(plan.inputs()[0].bytes, 1 << 63);
    let mut a = arena();
    let before = a.as_slice().to_vec();
    let base = a.as_mut_slice().as_mut_ptr();
    let huge = std::ptr::without_provenance::<u8>(64);
    // SAFETY: rejected before any access (the claimed capacity is a lie the check catches).
    let e = unsafe {
        plan.run_raw(
            &[RawInput::new(huge, 1 << 63)],
            &[RawOutput::new(base.wrapping_add(OUT), 16)],
        )
    }
    .unwrap_err();
    assert_eq!(e.rule(), Rule::Overflow);
    assert_eq!(a.as_slice(), &before[..]);
}
