//! CastTess / CastUntess: tiled packing writes every byte of the span (padding zero),
//! static and runtime tile loops agree, and pack-then-unpack restores the tensor.

use half::bf16;
use proptest::prelude::*;
use strideweave::tensor::{
    prepare, AlignedBytes, Op, Placement, Rule, StaticTile, TensorSpec, Tile1x1x1x32, Tile1x4x4x16,
    TileDims, TileDispatch,
};
use strideweave::{layout_type, StaticLayout};

mod kernel_oracle;

use kernel_oracle::{coords, spec};

/// Deterministic element values that bf16 represents exactly (so round trips are exact).
fn value(i: usize) -> f32 {
    bf16::from_f32((i as f32 * 0.37 - 11.0) * if i.is_multiple_of(3) { -1.0 } else { 1.0 }).to_f32()
}

fn contiguous_input(s: &TensorSpec) -> AlignedBytes {
    let n = s.dims.element_count().unwrap() as usize;
    let mut b = Vec::with_capacity(n * 4);
    for i in 0..n {
        b.extend_from_slice(&value(i).to_le_bytes());
    }
    AlignedBytes::from_slice(&b)
}

const SENTINEL: u8 = 0xC3;

/// Packs `from` (f32, contiguous) into `to`, into a sentinel-filled buffer 64 bytes
/// longer than the span. Returns the whole buffer.
fn pack(from: &TensorSpec, to: &TensorSpec, dispatch: TileDispatch) -> AlignedBytes {
    let plan = prepare(Op::CastTess, &[*from], &[*to]).unwrap();
    let span = plan.outputs()[0].bytes as usize;
    let input = contiguous_input(from);
    let mut out = AlignedBytes::filled(span + 64, SENTINEL);
    plan.run_with(&[input.as_slice()], &mut [out.as_mut_slice()], dispatch)
        .unwrap();
    out
}

fn check_every_span_byte_written(to: &TensorSpec, out: &AlignedBytes) {
    let span = to.required_bytes().unwrap() as usize;
    let o = out.as_slice();
    // Nothing outside the span is written.
    assert!(
        o[span..].iter().all(|&b| b == SENTINEL),
        "{to}: wrote past the span"
    );
    // Every byte not occupied by a logical element is padding and must be zero.
    let mut occupied = vec![false; span];
    for c in coords(to.dims.extents()) {
        for b in 0..to.dtype.width() {
            occupied[to.byte_offset(&c, b).unwrap() as usize] = true;
        }
    }
    for (i, &occ) in occupied.iter().enumerate() {
        if !occ {
            assert_eq!(o[i], 0, "{to}: padding byte {i} not zero");
        }
    }
}

#[test]
fn mla_tiled_bf16_stores_low_bytes_then_high_bytes_per_pixel() {
    let from = spec("f32[1,5,7,20]");
    let to = spec("bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    let out = pack(&from, &to, TileDispatch::Auto);
    let o = out.as_slice();
    let ext = [1u64, 5, 7, 20];
    for (i, c) in coords(&ext).iter().enumerate() {
        let bits = bf16::from_f32(value(i)).to_bits();
        let lo = to.byte_offset(c, 0).unwrap() as usize;
        let hi = to.byte_offset(c, 1).unwrap() as usize;
        assert_eq!((o[lo], o[hi]), (bits as u8, (bits >> 8) as u8), "{c:?}");
    }
    // Element (0,0,0,c): pixel 0 of tile 0; low bytes at 0..16, high bytes at 16..32.
    let b1 = bf16::from_f32(value(1)).to_bits();
    assert_eq!((o[1], o[17]), (b1 as u8, (b1 >> 8) as u8));
    check_every_span_byte_written(&to, &out);
}

#[test]
fn padding_and_alignment_gaps_are_written_as_zero() {
    for to in [
        "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "f32[3,5,20] mla-tiled(roles=HWC, tile=(1,2,2,16), align=256)",
        "f16[2,3,2,5] mla-tiled(roles=DCHW, tile=(2,4,1,3), align=8)",
        "bf16[2,3,3,20] mla-cblocked(tile=(2,2), align=128)",
        "f32[5,3,17] mla-cblocked(tile=(4,1), align=1024)",
    ] {
        let to = spec(to);
        let from =
            TensorSpec::contiguous(to.dims.extents(), strideweave::tensor::DType::F32).unwrap();
        for d in [TileDispatch::Auto, TileDispatch::Runtime] {
            let out = pack(&from, &to, d);
            check_every_span_byte_written(&to, &out);
        }
    }
}

#[test]
fn static_tile_loop_and_runtime_tile_loop_produce_identical_bytes() {
    let from = spec("f32[2,9,11,40]");
    let to = spec("bf16[2,9,11,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    let input = contiguous_input(&from);
    let n = plan.outputs()[0].bytes as usize;
    let mut a = AlignedBytes::filled(n, 1);
    let mut b = AlignedBytes::filled(n, 2);
    plan.run_static::<Tile1x4x4x16>(&[input.as_slice()], &mut [a.as_mut_slice()])
        .unwrap();
    plan.run_with(
        &[input.as_slice()],
        &mut [b.as_mut_slice()],
        TileDispatch::Runtime,
    )
    .unwrap();
    assert_eq!(a.as_slice(), b.as_slice());
    // A static shape that is not the plan's tile is rejected before writing.
    let mut c = AlignedBytes::filled(n, 7);
    let e = plan
        .run_static::<Tile1x1x1x32>(&[input.as_slice()], &mut [c.as_mut_slice()])
        .unwrap_err();
    assert_eq!(e.rule(), Rule::TileMismatch);
    assert!(c.as_slice().iter().all(|&x| x == 7));
}

#[test]
fn cast_tess_admits_strided_input_and_rejects_bad_views() {
    // Channels-first strided input (C slowest in memory) packs like its contiguous copy.
    let to = spec("bf16[3,4,16] mla-tiled(roles=HWC, tile=(1,2,2,16), align=64)");
    let strided = spec("f32[3,4,16] strided(16,4,48)");
    let plan = prepare(Op::CastTess, &[strided], &[to]).unwrap();
    let mut input = AlignedBytes::zeroed(plan.inputs()[0].bytes as usize);
    for (i, c) in coords(&[3, 4, 16]).iter().enumerate() {
        let off = strided.byte_offset(c, 0).unwrap() as usize;
        input.as_mut_slice()[off..off + 4].copy_from_slice(&value(i).to_le_bytes());
    }
    let mut out = AlignedBytes::zeroed(plan.outputs()[0].bytes as usize);
    plan.run(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap();
    let reference = pack(&spec("f32[3,4,16]"), &to, TileDispatch::Auto);
    assert_eq!(
        out.as_slice(),
        &reference.as_slice()[..out.as_slice().len()]
    );

    for (from, rule) in [
        ("f32[3,4,16] strided(0,4,48)", Rule::ZeroStride),
        ("f32[3,4,16] strided(16,4,-48)", Rule::NegativeStride),
        ("f32[3,4,16] strided(8,4,48)", Rule::OverlappingStrides),
        ("i32[3,4,16]", Rule::UnsupportedDType),
    ] {
        let e = prepare(Op::CastTess, &[spec(from)], &[to]).unwrap_err();
        assert_eq!(e.rule(), rule, "{from}: {e}");
    }
    let e = prepare(
        Op::CastTess,
        &[spec("f32[3,4,16]")],
        &[spec("bf16[3,4,16]")],
    )
    .unwrap_err();
    assert_eq!(e.rule(), Rule::UnsupportedPlacement);
}

#[test]
fn empty_tiled_tensor_needs_zero_bytes_and_packs_nothing() {
    let from = spec("f32[0,4096,4096]");
    let to = spec("bf16[0,4096,4096] mla-cblocked(tile=(4,4), align=64)");
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    assert_eq!(plan.outputs()[0].bytes, 0);
    plan.run(&[&[]], &mut [&mut []]).unwrap();
}

fn arb_tiled() -> impl Strategy<Value = (TensorSpec, &'static str)> {
    let dims = prop::collection::vec(1u64..7, 1..=4);
    let dt = prop_oneof![Just("bf16"), Just("f16"), Just("f32")];
    (dims, dt, any::<u64>(), 0u32..9, any::<bool>()).prop_map(|(dims, dt, seed, align, cb)| {
        let rank = dims.len();
        let ds = dims
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let align = 1u64 << align;
        let pick = |i: u32| seed.rotate_left(i * 5);
        let placement = if cb && rank >= 3 {
            format!(
                "mla-cblocked(tile=({},{}), align={align})",
                1 + pick(1) % 3,
                1 + pick(2) % 3
            )
        } else {
            // A random permutation of roles on random axes.
            let mut roles = vec!['.'; rank];
            let mut tile = [1u64; 4];
            let mut axes: Vec<usize> = (0..rank).collect();
            for k in (1..axes.len()).rev() {
                axes.swap(k, (pick(k as u32 + 3) % (k as u64 + 1)) as usize);
            }
            let mut mapped = 0;
            for (r, ch) in "DHWC".chars().enumerate() {
                if mapped < rank && (pick(r as u32 + 11) % 4 != 0 || mapped == 0) {
                    roles[axes[mapped]] = ch;
                    tile[r] = 1 + pick(r as u32 + 17) % 5;
                    mapped += 1;
                }
            }
            let roles: String = roles.into_iter().collect();
            format!(
                "mla-tiled(roles={roles}, tile=({},{},{},{}), align={align})",
                tile[0], tile[1], tile[2], tile[3]
            )
        };
        (format!("{dt}[{ds}] {placement}").parse().unwrap(), dt)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// pack then unpack restores random tensors over random dims, roles, tiles and
    /// alignments; padding is zero; nothing past the span is written.
    #[test]
    fn pack_then_unpack_restores_random_tensors((to, dt) in arb_tiled(), seed in any::<u32>()) {
        let from: TensorSpec = format!("{dt}{}", to.dims).parse().unwrap();
        prop_assert!(matches!(to.placement, Placement::MlaTiled(_) | Placement::MlaCBlocked(_)));
        let n = to.dims.element_count().unwrap() as usize;
        let w = to.dtype.width() as usize;
        // Random payload; for floats avoid NaN so a bit-exact comparison is meaningful.
        let mut raw = Vec::with_capacity(n * w);
        let mut x = seed | 1;
        for _ in 0..n {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            let bits = x & if w == 2 { 0x3FFF } else { 0x3FFF_FFFF };
            raw.extend_from_slice(&bits.to_le_bytes()[..w]);
        }
        let input = AlignedBytes::from_slice(&raw);
        let pack = prepare(Op::CastTess, &[from], &[to]).unwrap();
        let span = pack.outputs()[0].bytes as usize;
        let mut packed = AlignedBytes::filled(span + 16, SENTINEL);
        pack.run(&[input.as_slice()], &mut [packed.as_mut_slice()]).unwrap();
        check_every_span_byte_written(&to, &packed);
        let mut rt = AlignedBytes::filled(span + 16, SENTINEL);
        pack.run_with(&[input.as_slice()], &mut [rt.as_mut_slice()], TileDispatch::Runtime).unwrap();
        prop_assert_eq!(packed.as_slice(), rt.as_slice());
        let unpack = prepare(Op::CastUntess, &[to], &[from]).unwrap();
        let mut back = AlignedBytes::filled(n * w, 0xEE);
        unpack.run(&[&packed.as_slice()[..span]], &mut [back.as_mut_slice()]).unwrap();
        prop_assert_eq!(back.as_slice(), input.as_slice());
    }
}

#[test]
fn static_vector_tiles_match_runtime_tiles_on_subnormals_nan_and_ties() {
    // Interior tiles of a static shape take the vector packer; every f32 class must give
    // the same bytes as the scalar runtime loop.
    let from = spec("f32[8,8,32]");
    let to = spec("bf16[8,8,32] mla-tiled(roles=HWC, tile=(1,4,4,16), align=64)");
    let specials = [
        0x0000_0001u32,
        0x8000_0001,
        0x007F_FFFF,
        0x0000_8000,
        0x0001_8000,
        0x3F80_8000,
        0x3F81_8000,
        0x7F7F_FFFF,
        0x7F80_0000,
        0xFF80_0001,
        0x7FC0_0000,
        0x8000_0000,
    ];
    let mut x = 0x1234_5678u32;
    let bytes: Vec<u8> = (0..8 * 8 * 32)
        .flat_map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let b = if i % 3 == 0 {
                specials[(i / 3) % specials.len()]
            } else {
                x
            };
            b.to_le_bytes()
        })
        .collect();
    let input = AlignedBytes::from_slice(&bytes);
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    let n = plan.outputs()[0].bytes as usize;
    let mut a = AlignedBytes::filled(n, 1);
    let mut b = AlignedBytes::filled(n, 2);
    plan.run_static::<Tile1x4x4x16>(&[input.as_slice()], &mut [a.as_mut_slice()])
        .unwrap();
    plan.run_with(
        &[input.as_slice()],
        &mut [b.as_mut_slice()],
        TileDispatch::Runtime,
    )
    .unwrap();
    assert_eq!(a.as_slice(), b.as_slice());
    for (i, c) in coords(&[8, 8, 32]).iter().enumerate() {
        let v = f32::from_bits(u32::from_le_bytes(
            bytes[4 * i..4 * i + 4].try_into().unwrap(),
        ));
        let want = bf16::from_f32(v).to_bits();
        let lo = to.byte_offset(c, 0).unwrap() as usize;
        let hi = to.byte_offset(c, 1).unwrap() as usize;
        assert_eq!(
            u16::from_le_bytes([a.as_slice()[lo], a.as_slice()[hi]]),
            want,
            "{c:?}"
        );
    }
}

/// Packs `from` (contiguous f32 values) into `to` with the static tile layout `L` and with
/// the runtime-tile loop; both buffers start with different sentinels.
fn static_and_runtime<L: StaticLayout>(from: &str, to: &str) -> (AlignedBytes, AlignedBytes) {
    let (from, to) = (spec(from), spec(to));
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    let input = contiguous_input(&from);
    let n = plan.outputs()[0].bytes as usize;
    let mut a = AlignedBytes::filled(n, 1);
    let mut b = AlignedBytes::filled(n, 2);
    plan.run_static::<L>(&[input.as_slice()], &mut [a.as_mut_slice()])
        .unwrap();
    plan.run_with(
        &[input.as_slice()],
        &mut [b.as_mut_slice()],
        TileDispatch::Runtime,
    )
    .unwrap();
    check_every_span_byte_written(&to, &a);
    (a, b)
}

#[test]
fn cast_tess_loop_is_generic_over_a_static_tile_layout_written_with_layout_type() {
    // Issue 4: the packing loop takes a static layout from the layout library; any compact
    // (TC,TW,TH,TD) tile layout, not only the built-in ones, gives the runtime loop's bytes.
    // Non-built-in shape, f16 output, odd extents (edge tiles and channel padding).
    let (a, b) = static_and_runtime::<layout_type!((5,3,2,1):(1,5,15,30))>(
        "f32[2,5,7,9]",
        "f16[2,5,7,9] mla-tiled(roles=.HWC, tile=(1,2,3,5), align=32)",
    );
    assert_eq!(a.as_slice(), b.as_slice());
    // Depth > 1 and 16 channels: F32 -> BF16 interior tiles take the vector packer, whose
    // pixel offsets come from the layout's strides.
    let (a, b) = static_and_runtime::<layout_type!((16,3,2,2):(1,16,48,96))>(
        "f32[5,4,7,40]",
        "bf16[5,4,7,40] mla-tiled(roles=DHWC, tile=(2,2,3,16), align=64)",
    );
    assert_eq!(a.as_slice(), b.as_slice());
    // Roles in another order; the stride of an extent-1 mode is irrelevant and unchecked.
    let (a, b) = static_and_runtime::<layout_type!((16,1,4,1):(1,7,16,0))>(
        "f32[9,33,3]",
        "bf16[9,33,3] mla-tiled(roles=HC., tile=(1,4,1,16), align=64)",
    );
    assert_eq!(a.as_slice(), b.as_slice());
    // MlaCBlocked: one 16-lane block, (16, TW, TH, 1).
    let (a, b) = static_and_runtime::<layout_type!((16,3,2,1):(1,16,48,96))>(
        "f32[2,5,7,20]",
        "bf16[2,5,7,20] mla-cblocked(tile=(2,3), align=128)",
    );
    assert_eq!(a.as_slice(), b.as_slice());
}

#[test]
fn static_tile_layout_constants_come_from_the_layout() {
    type T = layout_type!((16,4,2,3):(1,16,64,128));
    assert_eq!(StaticTile::<T>::DHWC, [3, 2, 4, 16]);
    assert_eq!(StaticTile::<T>::PIXEL_STRIDES, [128, 64, 16]);
    let t = StaticTile::<T>::new();
    assert_eq!((t.td(), t.th(), t.tw(), t.tc()), (3, 2, 4, 16));
    // The built-in shapes are aliases of static layouts.
    assert_eq!(Tile1x4x4x16::LAYOUT.to_string(), "(16,4,4,1):(1,16,64,256)");
    assert_eq!(Tile1x1x1x32::LAYOUT.to_string(), "(32,1,1,1):(1,32,32,32)");
}

#[test]
fn static_tile_layout_of_another_tile_is_rejected_before_writing() {
    let from = spec("f32[4,4,16]");
    let to = spec("bf16[4,4,16] mla-tiled(roles=HWC, tile=(1,4,4,16), align=64)");
    let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
    let input = contiguous_input(&from);
    let mut out = AlignedBytes::filled(512, 9);
    let e = plan
        .run_static::<layout_type!((16,4,2,1):(1,16,64,128))>(
            &[input.as_slice()],
            &mut [out.as_mut_slice()],
        )
        .unwrap_err();
    assert_eq!(e.rule(), Rule::TileMismatch);
    assert!(e.detail().contains("(16,4,2,1):(1,16,64,128)"), "{e}");
    // Both tiles in one order, (D,H,W,C), without Rust's Option debug form.
    assert!(
        e.detail().contains("a tile of (D,H,W,C) = (1,2,4,16)"),
        "{e}"
    );
    assert!(
        e.detail()
            .contains("the placement's tile is (D,H,W,C) = (1,4,4,16)"),
        "{e}"
    );
    assert!(!e.detail().contains("Some("), "{e}");
    assert!(out.as_slice().iter().all(|&x| x == 9));
    // A non-tess plan is rejected too.
    let cast = prepare(Op::Cast, &[from], &[spec("bf16[4,4,16]")]).unwrap();
    let e = cast
        .run_static::<Tile1x4x4x16>(&[input.as_slice()], &mut [out.as_mut_slice()])
        .unwrap_err();
    assert_eq!(e.rule(), Rule::UnsupportedPlacement);
    assert!(out.as_slice().iter().all(|&x| x == 9));
}
