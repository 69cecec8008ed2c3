//! The DSL kernels in `examples/` (item 5), each against a naive reference and, for the
//! MLA pack, against the built-in CastTess byte for byte.

#[path = "../examples/gemm.rs"]
#[allow(dead_code)]
mod gemm;
#[path = "../examples/mla_pack.rs"]
#[allow(dead_code)]
mod mla_pack;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;

/// Scenario: the DSL MLA pack equals the placement's definition and the built-in
/// CastTess, on dividing and awkward shapes (channels 3, 20, 40; odd H and W).
#[test]
fn mla_pack_equals_cast_tess() {
    for dims in [
        [1, 4, 4, 16],
        [1, 5, 7, 20],
        [2, 3, 9, 40],
        [1, 1, 1, 3],
        [1, 12, 8, 32],
        [3, 6, 5, 17],
    ] {
        let len: u64 = dims.iter().product();
        let src: Vec<f32> = (0..len).map(|i| (i as f32 * 0.73).cos() * 1e3).collect();
        let bytes = mla_pack::packed_len(dims[0], dims[1], dims[2], dims[3]) as usize;
        let (mut a, mut b, mut c) = (vec![0x5A; bytes], vec![0; bytes], vec![0xFF; bytes]);
        mla_pack::pack(&src, dims, &mut a).unwrap();
        mla_pack::pack_naive(&src, dims, &mut b);
        mla_pack::pack_builtin(&src, dims, &mut c);
        assert_eq!(a, b, "{dims:?}");
        assert_eq!(a, c, "{dims:?}");
    }
}

/// Bad input: an output buffer shorter than the placement is an error naming the sizes.
#[test]
fn mla_pack_rejects_a_short_output() {
    let src = vec![0.0f32; 16];
    let mut out = vec![0u8; 100];
    let e = mla_pack::pack(&src, [1, 1, 1, 16], &mut out).unwrap_err();
    assert!(e.message().contains("100 bytes"), "{e}");
}

/// Scenario: the tiled transpose equals the hand-written blocked loop, edges included.
#[test]
fn transpose_equals_the_blocked_loop() {
    for (m, n) in [(16, 16), (33, 47), (1, 1), (2, 70), (64, 48)] {
        let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
        let (mut a, mut b) = (vec![-1.0; m * n], vec![-1.0; m * n]);
        transpose::transpose(&src, m as u64, n as u64, &mut a).unwrap();
        transpose::transpose_blocked(&src, m, n, &mut b);
        assert_eq!(a, b, "{m}x{n}");
    }
}

/// Scenario: the fragment GEMM equals the naive triple loop (integer-valued data, so
/// the sums are exact in any order), edges included.
#[test]
fn gemm_equals_the_triple_loop() {
    for (m, n, k) in [
        (4, 16, 64),
        (9, 17, 65),
        (1, 1, 1),
        (32, 48, 130),
        (5, 3, 2),
    ] {
        let a: Vec<f32> = (0..m * k).map(|x| ((x * 7) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..k * n).map(|x| ((x * 5) % 13) as f32 - 6.0).collect();
        let (mut c1, mut c2) = (vec![0.0; m * n], vec![0.0; m * n]);
        gemm::gemm(&a, &b, &mut c1, m as u64, n as u64, k as u64).unwrap();
        gemm::gemm_naive(&a, &b, &mut c2, m, n, k);
        assert_eq!(c1, c2, "{m}x{n}x{k}");
    }
}
