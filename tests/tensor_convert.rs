//! F32 -> BF16 / F16 conversions are bit-exact with the `half` crate on every SIMD path:
//! round to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.

use half::slice::HalfFloatSliceExt;
use half::{bf16, f16};
use strideweave::tensor::convert::{f32_to_bf16_slice_with, f32_to_f16_slice_with, ConvertPath};

fn paths() -> Vec<ConvertPath> {
    ConvertPath::ALL
        .into_iter()
        .filter(|p| p.is_available())
        .collect()
}

/// Converts `bits` with every available path and compares each result to `half`'s
/// (computed once, then compared per path as slices: the 2^32-input run's time was
/// mostly the reference conversions, once per path).
fn check_bits(bits: &[u32]) {
    let src: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
    let want_b16: Vec<u16> = src.iter().map(|&x| bf16::from_f32(x).to_bits()).collect();
    let want_h16: Vec<u16> = src.iter().map(|&x| f16::from_f32(x).to_bits()).collect();
    let mut b16 = vec![bf16::ZERO; src.len()];
    let mut h16 = vec![f16::ZERO; src.len()];
    for p in paths() {
        f32_to_bf16_slice_with(p, &src, &mut b16).unwrap();
        f32_to_f16_slice_with(p, &src, &mut h16).unwrap();
        assert_same_bits(p, "bf16", &src, b16.reinterpret_cast(), &want_b16);
        assert_same_bits(p, "f16", &src, h16.reinterpret_cast(), &want_h16);
    }
}

/// Fails naming the first input whose converted bits differ from `half`'s.
fn assert_same_bits(p: ConvertPath, dtype: &str, src: &[f32], got: &[u16], want: &[u16]) {
    if got != want {
        let i = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(0);
        panic!(
            "{p:?} {dtype} of {:#010x}: {:#06x}, half gives {:#06x}",
            src[i].to_bits(),
            got[i],
            want[i]
        );
    }
}

#[test]
fn special_values_subnormals_and_ties_match_half_on_every_path() {
    let mut bits = vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007F_FFFF,
        0x807F_FFFF,
        0x0000_8000,
        0x0001_8000,
        0x0000_7FFF,
        0x0080_0000,
        0x3F80_8000,
        0x3F81_8000,
        0x3F80_8001,
        0x7F7F_FFFF,
        0xFF7F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7F80_0001,
        0xFF80_0001,
        0x7FC0_0000,
        0xFFFF_FFFF,
        0x7FBF_FFFF,
        0x477F_F000,
        0x477F_EFFF,
        0x3380_0000,
        0x3380_0001,
        0x337F_FFFF,
        0x3300_0000,
        0x3300_0001,
        0x387F_C000,
    ];
    // Place each special value in every lane position of a SIMD block and the tail.
    let base = bits.clone();
    for shift in 0..17 {
        bits.extend(std::iter::repeat_n(0x3F80_0000, shift));
        bits.extend(&base);
    }
    check_bits(&bits);
}

#[test]
fn pseudo_random_bit_patterns_match_half_on_every_path() {
    let mut x = 0x9E37_79B9u32;
    let bits: Vec<u32> = (0..200_003)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect();
    check_bits(&bits);
}

#[test]
fn every_subnormal_f32_matches_half_on_every_path() {
    let bits: Vec<u32> = (1u32..0x0080_0000)
        .step_by(7)
        .flat_map(|b| [b, b | 0x8000_0000])
        .collect();
    check_bits(&bits);
}

/// All 2^32 f32 bit patterns through every available path, compared with `half`.
/// Slow in debug builds; CI runs it in release mode with
/// `cargo test --release --test tensor_convert -- --ignored exhaustive`.
#[test]
#[ignore = "exhaustive: 2^32 inputs, run in release mode with --ignored"]
fn exhaustive_every_f32_bit_pattern_matches_half_for_bf16_and_f16() {
    const CHUNK: u64 = 1 << 22;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let chunks = (1u64 << 32) / CHUNK;
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut c = t;
                while c < chunks {
                    let start = (c * CHUNK) as u32;
                    let bits: Vec<u32> = (0..CHUNK as u32).map(|i| start + i).collect();
                    check_bits(&bits);
                    c += threads;
                }
            });
        }
    });
}
