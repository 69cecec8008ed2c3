//! The tensor DSL's copy family against brute force: `copy`, `transform`, `fill`,
//! `copy_if` and `CopyPlan` on random layouts equal the element-by-element loop over
//! keys, and the run length they use (`max_common_vector`) satisfies CuTe's law.

use proptest::prelude::*;
use strideweave::tensor::{copy, copy_if, fill, transform, CopyPlan, Tensor};
use strideweave::{layout, Layout, Shape, Stride};

/// A flat layout with `extents`, strides a compact column-major order permuted by
/// `perm` and stretched by `gap` at one position: injective, often with common runs.
fn injective(extents: &[u64], perm: &[usize], gap: (usize, u64)) -> Layout {
    let n = extents.len();
    let mut strides = vec![0u64; n];
    let mut acc = 1;
    for (pos, &i) in perm.iter().enumerate().take(n) {
        if pos == gap.0 % n.max(1) {
            acc *= gap.1;
        }
        strides[i] = acc;
        acc *= extents[i];
    }
    Layout::new(
        Shape::new(extents.to_vec()).unwrap(),
        Stride::new(strides).unwrap(),
    )
    .unwrap()
}

fn injective_pair() -> impl Strategy<Value = (Layout, Layout)> {
    (1usize..=4)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(1u64..=5, n),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
                (0usize..4, 1u64..=3),
                (0usize..4, 1u64..=3),
            )
        })
        .prop_map(|(e, p1, p2, g1, g2)| (injective(&e, &p1, g1), injective(&e, &p2, g2)))
}

fn any_flat() -> impl Strategy<Value = Layout> {
    proptest::collection::vec((1u64..=5, 0u64..=12), 1..=4).prop_map(|v| {
        let (e, s): (Vec<u64>, Vec<u64>) = v.into_iter().unzip();
        Layout::new(Shape::new(e).unwrap(), Stride::new(s).unwrap()).unwrap()
    })
}

fn data(n: u64) -> Vec<u32> {
    (0..n as u32).map(|x| x * 7 + 1).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Scenario: copy between any source and an injective destination of the same size
    /// writes dst(k) = src(k) for every key and touches nothing else.
    #[test]
    fn copy_is_the_key_loop((dst_l, src_inj) in injective_pair(), src_any in any_flat(), use_any in any::<bool>()) {
        let src_l = if use_any && src_any.size() == dst_l.size() { src_any } else { src_inj };
        let src = data(src_l.cosize());
        let mut got = vec![0u32; dst_l.cosize() as usize];
        let mut want = got.clone();
        copy(&Tensor::new(&src[..], src_l).unwrap(), &mut Tensor::new(&mut got[..], dst_l).unwrap()).unwrap();
        for k in 0..src_l.size() {
            want[dst_l.index_of(k).unwrap() as usize] = src[src_l.index_of(k).unwrap() as usize];
        }
        prop_assert_eq!(got, want, "{} -> {}", src_l, dst_l);
    }

    /// Scenario: transform applies f once per key; a reused CopyPlan gives the same.
    #[test]
    fn transform_and_plans_are_the_key_loop((src_l, dst_l) in injective_pair()) {
        let src = data(src_l.cosize());
        let mut got = vec![0u64; dst_l.cosize() as usize];
        let mut planned = got.clone();
        let mut want = got.clone();
        let s = Tensor::new(&src[..], src_l).unwrap();
        transform(&s, &mut Tensor::new(&mut got[..], dst_l).unwrap(), |x| x as u64 * 3).unwrap();
        let plan = CopyPlan::new(&src_l, &dst_l).unwrap();
        plan.transform(&s, &mut Tensor::new(&mut planned[..], dst_l).unwrap(), |x| x as u64 * 3).unwrap();
        for k in 0..src_l.size() {
            want[dst_l.index_of(k).unwrap() as usize] = src[src_l.index_of(k).unwrap() as usize] as u64 * 3;
        }
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(&planned, &want);
    }

    /// Scenario: fill writes exactly the layout's image.
    #[test]
    fn fill_writes_the_image(l in any_flat()) {
        let mut got = vec![0u8; l.cosize() as usize];
        fill(&mut Tensor::new(&mut got[..], l).unwrap(), 5);
        let mut want = vec![0u8; l.cosize() as usize];
        for k in 0..l.size() {
            want[l.index_of(k).unwrap() as usize] = 5;
        }
        prop_assert_eq!(got, want);
    }

    /// Scenario: copy_if copies exactly the keys the predicate admits.
    #[test]
    fn copy_if_is_the_masked_key_loop((src_l, dst_l) in injective_pair(), m in 1u64..5) {
        let src = data(src_l.cosize());
        let mut got = vec![0u32; dst_l.cosize() as usize];
        let mut want = got.clone();
        copy_if(|k| k % m == 0, &Tensor::new(&src[..], src_l).unwrap(), &mut Tensor::new(&mut got[..], dst_l).unwrap()).unwrap();
        for k in (0..src_l.size()).filter(|k| k % m == 0) {
            want[dst_l.index_of(k).unwrap() as usize] = src[src_l.index_of(k).unwrap() as usize];
        }
        prop_assert_eq!(got, want);
    }

    /// CuTe's max_common_vector law: for n below it, the layouts agree on a contiguous
    /// run, a(inv_b(i)) = i where inv_b is max_common_layout's key layout.
    #[test]
    fn max_common_vector_law((a, b) in injective_pair()) {
        let v = a.max_common_vector(&b);
        prop_assert!(v >= 1);
        let keys = a.max_common_layout(&b);
        if v > 1 {
            prop_assert_eq!(keys.size(), v);
            for i in 0..v {
                let k = keys.index_of(i).unwrap();
                prop_assert_eq!(b.index_of(k).unwrap(), i);
                prop_assert_eq!(a.index_of(k).unwrap(), a.index_of(keys.index_of(0).unwrap()).unwrap() + i);
            }
        }
        let plan = CopyPlan::new(&a, &b).unwrap();
        prop_assert_eq!(plan.vector() * plan.runs(), a.size());
    }
}

/// Scenario: copy moves whole runs: a row-major 4x8 into a row-major tile of a wider
/// matrix is 4 runs of 8; two identical compact layouts are one run.
#[test]
fn copy_plans_find_the_common_runs() {
    let rows: Layout = "(4,8):(8,1)".parse().unwrap();
    let wide: Layout = "(4,8):(16,1)".parse().unwrap();
    let p = CopyPlan::new(&rows, &wide).unwrap();
    assert_eq!((p.vector(), p.runs()), (8, 4));
    let q = CopyPlan::new(&rows, &rows).unwrap();
    assert_eq!((q.vector(), q.runs()), (32, 1));
    let t = CopyPlan::new(&rows, &"(4,8):(1,4)".parse().unwrap()).unwrap();
    assert_eq!((t.vector(), t.runs()), (1, 32));
}

/// Bad input: sizes that differ are an error naming both layouts and sizes; nothing is
/// written.
#[test]
fn copy_of_different_sizes_is_an_error() {
    let src = [1u8; 6];
    let mut dst = [0u8; 8];
    let e = copy(
        &Tensor::new(&src[..], "6:1".parse::<Layout>().unwrap()).unwrap(),
        &mut Tensor::new(&mut dst[..], "8:1".parse::<Layout>().unwrap()).unwrap(),
    )
    .unwrap_err();
    assert!(
        e.message().contains("6 elements") && e.message().contains("8"),
        "{e}"
    );
    assert_eq!(dst, [0; 8]);
    let plan = CopyPlan::new(
        &"(2,3):(1,2)".parse().unwrap(),
        &"(2,3):(3,1)".parse().unwrap(),
    )
    .unwrap();
    let e = plan
        .copy(
            &Tensor::new(&src[..], "6:1".parse::<Layout>().unwrap()).unwrap(),
            &mut Tensor::new(&mut dst[..6], "6:1".parse::<Layout>().unwrap()).unwrap(),
        )
        .unwrap_err();
    assert!(e.message().contains("copy plan for"), "{e}");
}

/// Static tensors: the plan is computed by the compiler and gives the same bytes as the
/// runtime plan.
#[test]
fn static_copy_equals_runtime_copy() {
    let src: Vec<f32> = (0..1024).map(|x| x as f32).collect();
    let (mut a, mut b) = (vec![0.0f32; 256], vec![0.0f32; 256]);
    let s = Tensor::new(&src[..], layout!((16,4,4):(1,32,256))).unwrap();
    copy(
        &s,
        &mut Tensor::new(&mut a[..], layout!((16,4,4):(1,16,64))).unwrap(),
    )
    .unwrap();
    copy(
        &s.to_runtime(),
        &mut Tensor::new(&mut b[..], "(16,4,4):(1,16,64)".parse::<Layout>().unwrap()).unwrap(),
    )
    .unwrap();
    assert_eq!(a, b);
    assert_eq!(a[16 * 5 + 3], src[32 + 256 + 3]);
}
