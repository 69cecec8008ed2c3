//! The converting copy (`convert`, `ConvertPlan`), BF16 byte-plane tensors and the tile
//! walk (`TileWalk`): every element against a per-key reference built from `half` and
//! `Layout::index_of`, on dividing and awkward shapes, on every conversion path.

use half::{bf16, f16};
use strideweave::tensor::convert::ConvertPath;
use strideweave::tensor::{convert, ConvertPlan, Tensor, TileWalk};
use strideweave::{Layout, Shape, Stride};

fn lay(s: &str) -> Layout {
    s.parse().unwrap()
}

fn values(n: usize) -> Vec<f32> {
    // includes values that round (ties to even), a NaN, infinities and a subnormal
    let mut v: Vec<f32> = (0..n).map(|i| ((i as f32) * 0.731).sin() * 300.0).collect();
    for (i, x) in [
        f32::NAN,
        f32::INFINITY,
        -0.0,
        f32::from_bits(0x3F80_8000), // 1 + 2^-8: a tie for bf16
        f32::MIN_POSITIVE / 3.0,
    ]
    .into_iter()
    .enumerate()
    {
        if i < n {
            v[i * 7 % n] = x;
        }
    }
    v
}

/// Requirement: `convert` writes `bf16::from_f32(src[k])` at every key of the
/// destination, whatever the two layouts (common runs, strided, transposed, layouts
/// without common leaves), and touches nothing else.
#[test]
fn convert_matches_the_per_key_definition() {
    let pairs = [
        ("(4,8):(8,1)", "(4,8):(8,1)"),
        ("(4,8):(8,1)", "(4,8):(1,4)"),
        ("(4,8):(16,1)", "(4,(2,4)):(32,(1,2))"),
        ("(3,5):(5,1)", "(3,5):(1,3)"),
        ("(2,3):(3,1)", "(3,2):(1,3)"), // no common refinement: element by element
        ("((2,2),(4,4)):((1,32),(2,8))", "64:2"),
        ("(16,4,4):(1,64,1024)", "(16,4,4):(1,16,64)"),
    ];
    for (a, b) in pairs {
        let (la, lb) = (lay(a), lay(b));
        let src = values(la.cosize() as usize);
        let mut out = vec![bf16::from_f32(-7.0); lb.cosize() as usize + 3];
        let ta = Tensor::new(&src[..], la).unwrap();
        convert(&ta, &mut Tensor::new(&mut out[..], lb).unwrap()).unwrap();
        let mut want = vec![bf16::from_f32(-7.0); out.len()];
        for k in 0..la.size() {
            let x = src[la.index_of(k).unwrap() as usize];
            want[lb.index_of(k).unwrap() as usize] = bf16::from_f32(x);
        }
        let bits = |v: &[bf16]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&out), bits(&want), "{a} -> {b}");
    }
}

/// Requirement: every conversion path gives the same bits (f32 -> f16, f32 -> bf16
/// byte planes, byte planes -> f32).
#[test]
fn every_conversion_path_gives_the_same_bits() {
    let l = lay("(16,4,3):(1,32,128)");
    let planes = lay("(16,4,3):(1,64,256)");
    let src = values(l.cosize() as usize);
    let mut reference: Option<(Vec<u16>, Vec<u8>, Vec<u32>)> = None;
    for path in ConvertPath::ALL.into_iter().filter(|p| p.is_available()) {
        let plan = ConvertPlan::new(&l, &l).unwrap().with_path(path).unwrap();
        let mut h = vec![f16::ZERO; l.cosize() as usize];
        plan.convert(
            &Tensor::new(&src[..], l).unwrap(),
            &mut Tensor::new(&mut h[..], l).unwrap(),
        )
        .unwrap();
        let pp = ConvertPlan::new(&l, &planes)
            .unwrap()
            .with_path(path)
            .unwrap();
        let mut bytes = vec![0u8; planes.cosize() as usize + 16];
        let mut p = Tensor::bf16_planes(&mut bytes[..], 16, planes).unwrap();
        pp.convert(&Tensor::new(&src[..], l).unwrap(), &mut p)
            .unwrap();
        for k in 0..l.size() {
            let x = src[l.index_of(k).unwrap() as usize];
            assert_eq!(
                p.get_key(k).unwrap().to_bits(),
                bf16::from_f32(x).to_bits(),
                "{path:?} key {k}"
            );
        }
        let back_plan = ConvertPlan::new(&planes, &l)
            .unwrap()
            .with_path(path)
            .unwrap();
        let mut back = vec![0.0f32; l.cosize() as usize];
        back_plan
            .convert(
                &Tensor::bf16_planes(&bytes[..], 16, planes).unwrap(),
                &mut Tensor::new(&mut back[..], l).unwrap(),
            )
            .unwrap();
        let got = (
            h.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            bytes.clone(),
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        );
        for k in 0..l.size() {
            let o = l.index_of(k).unwrap() as usize;
            assert_eq!(
                got.0[o],
                f16::from_f32(src[o]).to_bits(),
                "{path:?} f16 {k}"
            );
            let b = bf16::from_f32(src[o]).to_f32().to_bits();
            assert_eq!(got.2[o], b, "{path:?} round trip {k}");
        }
        match &reference {
            None => reference = Some(got),
            Some(r) => assert_eq!(r, &got, "{path:?}"),
        }
    }
}

/// Requirement: a box converts exactly the keys inside it; with `zero_rest` the rest
/// of the destination tile becomes zero bits, without it stays as it was.
#[test]
fn boxes_convert_their_keys_and_zero_or_keep_the_rest() {
    let src_l = lay("(4,4,16):(640,40,1)"); // a tile of an NHWC image (W = 16, C = 40)
    let dst_l = lay("(4,4,16):(128,32,1)"); // one byte plane of an MLA tile
    let src = values(4 * 640);
    let plan = ConvertPlan::new(&src_l, &dst_l).unwrap();
    for bx in [[4u64, 4, 8], [1, 4, 16], [4, 3, 16], [2, 1, 5], [0, 4, 16]] {
        for zero in [true, false] {
            let mut bytes = vec![0x5Au8; 512];
            let a = Tensor::new(&src[..], src_l).unwrap();
            let mut b = Tensor::bf16_planes(&mut bytes[..], 16, dst_l).unwrap();
            plan.convert_box_at(&a, 0, &mut b, 0, &bx, zero).unwrap();
            for h in 0..4 {
                for w in 0..4 {
                    for c in 0..16 {
                        let key = h + 4 * w + 16 * c;
                        let inside = h < bx[0] && w < bx[1] && c < bx[2];
                        let want = if inside {
                            bf16::from_f32(src[(h * 640 + w * 40 + c) as usize]).to_bits()
                        } else if zero {
                            0
                        } else {
                            0x5A5A
                        };
                        assert_eq!(b.get_key(key).unwrap().to_bits(), want, "{bx:?} {zero}");
                    }
                }
            }
        }
    }
    // a box that is not a prefix of a mode's leaves is an error naming it
    let two = ConvertPlan::new(&lay("((2,2),3):((1,2),4)"), &lay("((2,2),3):((1,2),4)")).unwrap();
    let (s, mut d) = (vec![0.0f32; 12], vec![0.0f32; 12]);
    let l = lay("((2,2),3):((1,2),4)");
    let e = two
        .convert_box_at(
            &Tensor::new(&s[..], l).unwrap(),
            0,
            &mut Tensor::new(&mut d[..], l).unwrap(),
            0,
            &[3, 3],
            false,
        )
        .unwrap_err();
    assert!(e.message().contains("box extent 3 of mode 0"), "{e}");
}

/// Bad input: sizes that differ, tiles past the data, wrong boxes and unavailable
/// paths are errors naming the numbers, never panics.
#[test]
fn bad_input_is_an_error() {
    let e = ConvertPlan::new(&lay("(4,4):(4,1)"), &lay("15:1")).unwrap_err();
    assert!(
        e.message().contains("16 elements") && e.message().contains("15"),
        "{e}"
    );
    let plan = ConvertPlan::new(&lay("(4,4):(4,1)"), &lay("(4,4):(4,1)")).unwrap();
    let (s, mut d) = (vec![0.0f32; 32], vec![bf16::ZERO; 32]);
    let a = Tensor::new(&s[..], lay("32:1")).unwrap();
    let mut b = Tensor::new(&mut d[..], lay("32:1")).unwrap();
    let e = plan.convert_at(&a, 17, &mut b, 0).unwrap_err();
    assert!(
        e.message().contains("offset 17") && e.message().contains("32 elements"),
        "{e}"
    );
    let e = plan.convert_at(&a, 0, &mut b, 20).unwrap_err();
    assert!(e.message().contains("destination"), "{e}");
    let e = plan.copy_at(
        &a,
        0,
        &mut Tensor::new(&mut vec![0.0f32; 8][..], lay("8:1")).unwrap(),
        0,
    );
    assert!(e.unwrap_err().message().contains("8 elements"));
    let e = plan
        .convert_box_at(&a, 0, &mut b, 0, &[5, 1], false)
        .unwrap_err();
    assert!(e.message().contains("larger than the mode"), "{e}");
    let e = plan
        .convert_box_at(&a, 0, &mut b, 0, &[1], false)
        .unwrap_err();
    assert!(e.message().contains("one extent per top-level mode"), "{e}");
    let e = plan
        .convert(&Tensor::new(&s[..], lay("(4,4):(1,4)")).unwrap(), &mut b)
        .unwrap_err();
    assert!(e.message().contains("used with"), "{e}");
    let mut bytes = [0u8; 10];
    assert!(Tensor::bf16_planes(&mut bytes[..], 0, lay("2:1")).is_err());
    let e = Tensor::bf16_planes(&mut bytes[..], 8, lay("4:1"))
        .err()
        .unwrap();
    assert!(e.message().contains("10 bytes"), "{e}");
    let mut t = Tensor::bf16_planes(&mut bytes[..], 8, lay("2:1")).unwrap();
    assert!(t.set_key(2, bf16::ONE).is_err());
    assert_eq!(t.get_key(2), None);
}

/// Requirement: a walk visits every tile once, in its order, with the origin the
/// zipped division gives and the extents clipped to the shape; `runs` covers the same
/// tiles in blocks whose tiles share their extents.
#[test]
fn tile_walk_visits_every_tile_with_its_origin_and_extents() {
    for (dims, tiler, order) in [
        (vec![8u64, 8], vec![4u64, 4], vec![0usize, 1]),
        (vec![5, 7], vec![4, 4], vec![1, 0]),
        (vec![1, 57, 55, 40], vec![1, 4, 4, 16], vec![3, 2, 1, 0]),
        (vec![3, 6, 5, 17], vec![1, 4, 4, 16], vec![2, 3, 0, 1]),
        (vec![10], vec![3], vec![0]),
        (vec![2, 3], vec![8, 8], vec![0, 1]),
    ] {
        let shape = Shape::new(dims.as_slice()).unwrap();
        let a = Layout::row_major(shape).unwrap();
        let b = Layout::col_major(shape).unwrap();
        let walk = TileWalk::new(&shape, &tiler, &[&a, &b])
            .unwrap()
            .order(&order)
            .unwrap();
        let counts: Vec<u64> = dims
            .iter()
            .zip(&tiler)
            .map(|(d, t)| d.div_ceil(*t))
            .collect();
        assert_eq!(walk.counts(), counts.as_slice());
        let mut seen = std::collections::BTreeSet::new();
        let mut prev: Option<Vec<u64>> = None;
        for t in walk.iter() {
            let c = t.coord().to_vec();
            // the element at the tile's first coordinate
            let first: Vec<u64> = c.iter().zip(&tiler).map(|(i, t)| i * t).collect();
            let key = |l: &Layout| -> u64 {
                first
                    .iter()
                    .enumerate()
                    .map(|(m, x)| x * l.leaf_stride(m))
                    .sum()
            };
            assert_eq!(t.origin(0), key(&a), "{dims:?} {c:?}");
            assert_eq!(t.origin(1), key(&b), "{dims:?} {c:?}");
            let ext: Vec<u64> = (0..dims.len())
                .map(|m| tiler[m].min(dims[m] - first[m]))
                .collect();
            assert_eq!(t.extents(), ext.as_slice());
            assert_eq!(t.is_full(), ext == tiler, "{dims:?} {c:?}");
            if let Some(p) = &prev {
                // the fastest mode of the order moves first
                let m0 = order[0];
                if p[m0] + 1 < counts[m0] {
                    assert_eq!(c[m0], p[m0] + 1);
                }
            }
            prev = Some(c.clone());
            assert!(seen.insert(c));
        }
        assert_eq!(seen.len() as u64, walk.count());
        // runs: the same tiles, in blocks of equal extents
        let mut covered = 0;
        for t in walk.runs() {
            covered += t.count();
            let counts = t.counts();
            let nb = order.len().min(3);
            // every tile of the block: an odometer over the block's modes
            let mut idx = [0u64; 3];
            'block: loop {
                let mut c = t.coord().to_vec();
                for d in 0..nb {
                    c[order[d]] += idx[d];
                }
                assert!(seen.remove(&c), "{dims:?}: tile {c:?} twice or never");
                let mut d = 0;
                loop {
                    if d == 3 {
                        break 'block;
                    }
                    idx[d] += 1;
                    if idx[d] < counts[d] {
                        break;
                    }
                    idx[d] = 0;
                    d += 1;
                }
            }
            // a block's tiles share their extents: interior or not as a whole
            let ext: Vec<u64> = (0..dims.len())
                .map(|m| tiler[m].min(dims[m] - t.coord()[m] * tiler[m]))
                .collect();
            assert_eq!(t.extents(), ext.as_slice());
        }
        assert_eq!(covered, walk.count());
        assert!(seen.is_empty());
    }
}

/// Requirement: converting and copying a whole tensor tile by tile (blocks, edges
/// clipped) equals the per-element definition; `zero_rest` pads a placement's edges.
#[test]
fn tiled_converting_copy_and_copy_equal_the_definition() {
    for (m, n) in [(16u64, 16u64), (33, 47), (1, 1), (5, 70), (64, 48)] {
        let shape = Shape::new((m, n)).unwrap();
        let a_l = Layout::row_major(shape).unwrap();
        let b_l = Layout::new(shape, Stride::new((1, m)).unwrap()).unwrap();
        let src = values((m * n) as usize);
        let walk = TileWalk::new(&shape, &[8, 8], &[&a_l, &b_l]).unwrap();
        let plan = ConvertPlan::new(walk.tile_layout(0), walk.tile_layout(1)).unwrap();
        let a = Tensor::new(&src[..], a_l).unwrap();
        let mut out = vec![f16::ZERO; (m * n) as usize];
        let mut copied = vec![0.0f32; (m * n) as usize];
        {
            let mut b = Tensor::new(&mut out[..], b_l).unwrap();
            for t in walk.runs() {
                plan.convert_tiles(&a, &mut b, &t, (0, 1), false).unwrap();
            }
            let mut c = Tensor::new(&mut copied[..], b_l).unwrap();
            for t in walk.iter() {
                plan.copy_tiles(&a, &mut c, &t, (0, 1)).unwrap();
            }
        }
        for i in 0..m {
            for j in 0..n {
                let x = src[(i * n + j) as usize];
                let o = (i + j * m) as usize;
                assert_eq!(
                    out[o].to_bits(),
                    f16::from_f32(x).to_bits(),
                    "{m}x{n} ({i},{j})"
                );
                assert_eq!(copied[o].to_bits(), x.to_bits(), "{m}x{n} ({i},{j})");
            }
        }
    }
}

/// Requirement: tile layouts without common leaves (no vector run, no refinement) still
/// convert and copy every block of a walk, tile by tile, element by element.
#[test]
fn layouts_without_common_leaves_convert_block_by_block() {
    let shape = Shape::new((6, 4)).unwrap();
    let a_l = lay("((2,3),4):((1,2),6)");
    let b_l = lay("((3,2),4):((1,3),6)");
    let src = values(24);
    let walk = TileWalk::new(&shape, &[6, 2], &[&a_l, &b_l]).unwrap();
    let plan = ConvertPlan::new(walk.tile_layout(0), walk.tile_layout(1)).unwrap();
    let a = Tensor::new(&src[..], a_l).unwrap();
    let mut out = [bf16::ZERO; 24];
    let mut copied = [0.0f32; 24];
    {
        let mut b = Tensor::new(&mut out[..], b_l).unwrap();
        let mut c = Tensor::new(&mut copied[..], b_l).unwrap();
        let blocks: Vec<_> = walk.runs().collect();
        assert_eq!(blocks.len(), 1); // both tiles of mode 1 in one block
        for t in &blocks {
            plan.convert_tiles(&a, &mut b, t, (0, 1), false).unwrap();
            plan.copy_tiles(&a, &mut c, t, (0, 1)).unwrap();
        }
    }
    for k in 0..24 {
        let (x, o) = (
            src[a_l.index_of(k).unwrap() as usize],
            b_l.index_of(k).unwrap() as usize,
        );
        assert_eq!(out[o].to_bits(), bf16::from_f32(x).to_bits(), "key {k}");
        assert_eq!(copied[o].to_bits(), x.to_bits(), "key {k}");
    }
}

/// A small deterministic generator (xorshift), so the sweep below is reproducible.
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Requirement: over a sweep of shapes, tilers, walk orders and layouts (row-major
/// source, destination padded to whole tiles with its modes stored in a random order,
/// f32 to bf16 byte planes or to f16), the tiled converting copy equals the per-key
/// definition, and `zero_rest` zeroes exactly the padding (or leaves it alone).
#[test]
fn tiled_converting_copy_sweep_equals_the_definition() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for case in 0..300usize {
        let rank = 1 + rng.next(4) as usize;
        let dims: Vec<u64> = (0..rank).map(|_| 1 + rng.next(9)).collect();
        let tiler: Vec<u64> = (0..rank).map(|_| 1 + rng.next(5)).collect();
        let padded: Vec<u64> = dims
            .iter()
            .zip(&tiler)
            .map(|(d, t)| d.div_ceil(*t) * t)
            .collect();
        // destination: padded modes, compact in a random mode order
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            perm.swap(i, rng.next(i as u64 + 1) as usize);
        }
        let mut dstride = vec![0u64; rank];
        let mut acc = 1;
        for &m in &perm {
            dstride[m] = acc;
            acc *= padded[m];
        }
        let shape = Shape::new(dims.as_slice()).unwrap();
        let a_l = Layout::row_major(shape).unwrap();
        let b_l = Layout::new(
            Shape::new(padded.as_slice()).unwrap(),
            Stride::new(dstride.as_slice()).unwrap(),
        )
        .unwrap();
        let mut order: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            order.swap(i, rng.next(i as u64 + 1) as usize);
        }
        let walk = TileWalk::new(&shape, &tiler, &[&a_l, &b_l])
            .unwrap()
            .order(&order)
            .unwrap();
        // every available conversion path in turn
        let paths: Vec<ConvertPath> = ConvertPath::ALL
            .into_iter()
            .filter(|p| p.is_available())
            .collect();
        let path = paths[case % paths.len()];
        let plan = ConvertPlan::new(walk.tile_layout(0), walk.tile_layout(1))
            .unwrap()
            .with_path(path)
            .unwrap();
        let src = values(a_l.cosize() as usize);
        let zero = case % 2 == 0;
        let blocks = case % 3 != 0;
        // f32 -> bf16 byte planes: the innermost destination mode is a plane group
        // (low bytes, then as many high bytes), the other modes twice as far apart
        let plane = padded[perm[0]] as usize;
        let n = b_l.cosize() as usize;
        let pstride: Vec<u64> = (0..rank)
            .map(|m| if m == perm[0] { 1 } else { 2 * dstride[m] })
            .collect();
        let planes_l = Layout::new(
            Shape::new(padded.as_slice()).unwrap(),
            Stride::new(pstride.as_slice()).unwrap(),
        )
        .unwrap();
        let pwalk = TileWalk::new(&shape, &tiler, &[&a_l, &planes_l])
            .unwrap()
            .order(&order)
            .unwrap();
        let pplan = ConvertPlan::new(pwalk.tile_layout(0), pwalk.tile_layout(1))
            .unwrap()
            .with_path(path)
            .unwrap();
        let mut halves = vec![f16::from_bits(0x5A5A); n];
        let mut bytes = vec![0x5Au8; 2 * n + 2 * plane];
        {
            let a = Tensor::new(&src[..], a_l).unwrap();
            let mut b = Tensor::new(&mut halves[..], b_l).unwrap();
            let mut p = Tensor::bf16_planes(&mut bytes[..], plane, planes_l).unwrap();
            let items: Vec<_> = if blocks {
                walk.runs().collect()
            } else {
                walk.iter().collect()
            };
            for t in &items {
                plan.convert_tiles(&a, &mut b, t, (0, 1), zero).unwrap();
            }
            let items: Vec<_> = if blocks {
                pwalk.runs().collect()
            } else {
                pwalk.iter().collect()
            };
            for t in &items {
                pplan.convert_tiles(&a, &mut p, t, (0, 1), zero).unwrap();
            }
        }
        let p = Tensor::bf16_planes(&bytes[..], plane, planes_l).unwrap();
        for k in 0..b_l.size() {
            // coordinate of padded key k, first mode fastest
            let mut rest = k;
            let mut inside = true;
            let mut skey = 0;
            let mut radix = 1;
            for m in 0..rank {
                let c = rest % padded[m];
                rest /= padded[m];
                inside &= c < dims[m];
                skey += c * radix;
                radix *= dims[m];
            }
            let o = b_l.index_of(k).unwrap() as usize;
            let (want_h, want_p) = if inside {
                let x = src[a_l.index_of(skey).unwrap() as usize];
                (f16::from_f32(x).to_bits(), bf16::from_f32(x).to_bits())
            } else if zero {
                (0, 0)
            } else {
                (0x5A5A, 0x5A5A)
            };
            let ctx =
                format!("case {case}: {dims:?} by {tiler:?}, order {order:?}, dst {b_l}, key {k}");
            assert_eq!(halves[o].to_bits(), want_h, "{ctx}");
            assert_eq!(
                p.get_key(k).unwrap().to_bits(),
                want_p,
                "{ctx} planes {plane}"
            );
        }
    }
}
