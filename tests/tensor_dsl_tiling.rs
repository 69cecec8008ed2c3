//! Tiling and partitioning tensors (item 3) against brute force: `zipped_divide`,
//! `tiled_divide`, `local_tile`, `local_partition` and `Tiles` follow CuTe's semantics,
//! tiles that overhang give partial edge tiles (ceiling counts), and identity tensors
//! tiled alike mask exactly the overhang.

use proptest::prelude::*;
use strideweave::tensor::{
    local_partition, local_tile, tiled_divide, zipped_divide, IdentityTensor, Tensor, TileWalk,
};
use strideweave::{Layout, Shape, Stride};

/// Scenario: a tiler that divides the tensor gives the layout-level `zipped_divide`.
#[test]
fn dividing_tilers_match_the_layout_algebra() {
    let l: Layout = "(8,12):(12,1)".parse().unwrap();
    let data = [0u8; 96];
    let t = Tensor::new(&data[..], l).unwrap();
    let tiles = ["4:1".parse::<Layout>().unwrap(), "3:1".parse().unwrap()];
    assert_eq!(
        *zipped_divide(&t, tiles).unwrap().layout(),
        l.zipped_divide(&tiles).unwrap()
    );
    assert_eq!(
        *tiled_divide(&t, tiles).unwrap().layout(),
        l.tiled_divide(&tiles).unwrap()
    );
    assert_eq!(
        *zipped_divide(&t, [4, 3]).unwrap().layout(),
        l.zipped_divide(&tiles).unwrap()
    );
}

/// Scenario: a 128x128 tile of a 64x64 tensor is one partial tile (the layout-level
/// divide pads, as C++ CuTe's does); its identity tile masks all but the 64x64 corner.
#[test]
fn a_tile_larger_than_the_tensor_is_one_partial_tile() {
    let l: Layout = "(64,64):(1,64)".parse().unwrap();
    let padded = l
        .zipped_divide(&["128:1".parse().unwrap(), "128:1".parse().unwrap()])
        .unwrap();
    assert_eq!(padded.get(0).unwrap().size(), 128 * 128);
    assert_eq!(padded.get(1).unwrap().size(), 1);
    let data = vec![0u8; 64 * 64];
    let t = Tensor::new(&data[..], l).unwrap();
    let tiles = t.tiles([128, 128]).unwrap();
    assert_eq!(tiles.count(), 1);
    assert_eq!(tiles.tile_layout().size(), 128 * 128);
    // the tile reaches past the data: handing it out as a view is an error, not UB
    assert!(tiles.tile(0).is_err());
    let id = IdentityTensor::new(&Shape::new((64, 64)).unwrap()).unwrap();
    let idt = id.tiles([128, 128]).unwrap();
    assert!(!idt.inside(0));
    let c = idt.tile(0).unwrap();
    assert_eq!((0..128 * 128).filter(|&k| c.in_bounds(k)).count(), 64 * 64);
    assert_eq!(c.coord(128 * 65 + 3)[..2], [3, 65]);
}

fn naive_tile_element(
    extents: [u64; 2],
    strides: [u64; 2],
    tile: [u64; 2],
    t: [u64; 2],
    e: [u64; 2],
) -> Option<u64> {
    let (i, j) = (t[0] * tile[0] + e[0], t[1] * tile[1] + e[1]);
    (i < extents[0] && j < extents[1]).then(|| i * strides[0] + j * strides[1])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// Law: tile `(ti, tj)` element `(a, b)` of any 2-D tensor cut by any tile shape is
    /// the tensor's element `(ti*TM + a, tj*TN + b)`; the identity tile's mask is true
    /// exactly where that element exists; the tile count is the ceiling.
    #[test]
    fn tiles_and_masks_are_brute_force(m in 1u64..=11, n in 1u64..=11, tm in 1u64..=6, tn in 1u64..=6, row_major in any::<bool>()) {
        let strides = if row_major { [n, 1] } else { [1, m] };
        let l = Layout::new(Shape::new((m, n)).unwrap(), Stride::new(strides).unwrap()).unwrap();
        let data: Vec<u64> = (0..m * n).collect();
        let t = Tensor::new(&data[..], l).unwrap();
        let tiles = t.tiles([tm, tn]).unwrap();
        let coords = IdentityTensor::new(&Shape::new((m, n)).unwrap()).unwrap().tiles([tm, tn]).unwrap();
        prop_assert_eq!(tiles.count(), m.div_ceil(tm) * n.div_ceil(tn));
        prop_assert_eq!(coords.count(), tiles.count());
        let mut seen = vec![0u32; (m * n) as usize];
        for k in 0..tiles.count() {
            let (ti, tj) = (k % m.div_ceil(tm), k / m.div_ceil(tm));
            let c = coords.tile(k).unwrap();
            let mut inside = true;
            for key in 0..tm * tn {
                let (a, b) = (key % tm, key / tm);
                let want = naive_tile_element([m, n], strides, [tm, tn], [ti, tj], [a, b]);
                prop_assert_eq!(c.in_bounds(key), want.is_some());
                if let Some(off) = want {
                    prop_assert_eq!(c.coord(key)[..2].to_vec(), vec![ti * tm + a, tj * tn + b]);
                    prop_assert_eq!(tiles.tile_layout().index_of(key).unwrap() + tiles.grid().index_of(k).unwrap(), off);
                    seen[off as usize] += 1;
                } else {
                    inside = false;
                }
            }
            prop_assert_eq!(coords.inside(k), inside);
            if inside {
                let v = tiles.tile(k).unwrap();
                for key in 0..tm * tn {
                    let want = naive_tile_element([m, n], strides, [tm, tn], [ti, tj], [key % tm, key / tm]).unwrap();
                    prop_assert_eq!(v[key as usize], want);
                }
                let lt = local_tile(&t, [tm, tn], (ti, tj)).unwrap();
                prop_assert_eq!(lt.layout(), *v.layout());
                prop_assert_eq!(lt[0], v[0]);
            }
        }
        // the tiles cover every element exactly once
        prop_assert!(seen.iter().all(|&s| s == 1));
    }

    /// Law: `local_partition` gives thread `t` the elements at its position (CuTe's
    /// idx2crd of `t` in the thread layout) of every thread-shaped tile, and the
    /// threads together cover each element once.
    #[test]
    fn local_partition_deals_every_element_once(mt in 1u64..=4, nt in 1u64..=4, rm in 1u64..=3, rn in 1u64..=3, row_major_threads in any::<bool>()) {
        let (m, n) = (mt * rm, nt * rn);
        let l = Layout::new(Shape::new((m, n)).unwrap(), Stride::new((1, m)).unwrap()).unwrap();
        let data: Vec<u64> = (0..m * n).collect();
        let t = Tensor::new(&data[..], l).unwrap();
        let thr_strides = if row_major_threads { (nt, 1) } else { (1, mt) };
        let threads = Layout::new(Shape::new((mt, nt)).unwrap(), Stride::new(thr_strides).unwrap()).unwrap();
        let mut seen = vec![0u32; (m * n) as usize];
        for idx in 0..mt * nt {
            let part = local_partition(&t, &threads, idx).unwrap();
            prop_assert_eq!(part.size(), rm * rn);
            let (ci, cj) = ((idx / thr_strides.0) % mt, (idx / thr_strides.1) % nt);
            for key in 0..rm * rn {
                let (a, b) = (key % rm, key / rm);
                let want = (a * mt + ci) + (b * nt + cj) * m;
                prop_assert_eq!(part[key as usize], want);
                seen[want as usize] += 1;
            }
        }
        prop_assert!(seen.iter().all(|&s| s == 1));
        prop_assert!(local_partition(&t, &threads, mt * nt).is_err());
    }
}

/// Masked edge tiles: reading and writing through `transform_tile_if` touches exactly the
/// in-bounds elements.
#[test]
fn masked_edge_tiles_touch_only_the_tensor() {
    let (m, n) = (5u64, 7u64);
    let shape = Shape::new((m, n)).unwrap();
    let src: Vec<i32> = (0..35).collect();
    let a = Tensor::new(&src[..], Layout::row_major(shape).unwrap()).unwrap();
    let mut out = vec![-1i32; 35];
    let mut b = Tensor::new(&mut out[..], Layout::row_major(shape).unwrap()).unwrap();
    let coords = IdentityTensor::new(&shape).unwrap().tiles([4, 4]).unwrap();
    let a_tiles = a.tiles([4, 4]).unwrap();
    let mut b_tiles = b.tiles_mut([4, 4]).unwrap();
    let mut regs = Tensor::new(vec![0i32; 16], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
    for k in 0..a_tiles.count() {
        a_tiles
            .transform_tile_if(k, &coords, &mut regs, |&x| x)
            .unwrap();
        b_tiles
            .transform_tile_if(k, &coords, &regs, |x| x * 2)
            .unwrap();
    }
    assert_eq!(out, src.iter().map(|x| x * 2).collect::<Vec<_>>());
    // a size mismatch is an error
    let mut small = Tensor::new(vec![0i32; 4], "4:1".parse::<Layout>().unwrap()).unwrap();
    assert!(a_tiles
        .transform_tile_if(0, &coords, &mut small, |&x| x)
        .is_err());
}

/// Coordinates of another shape than the tiled tensor's are an error, both ways, and
/// nothing is read or written: coordinates of a wider matrix would pass the elements
/// past its right edge, which the row-major data still holds (the next row's). A 6x10
/// matrix masked with the coordinates of 6x12 or 6x11 read wrapped elements before.
#[test]
fn masked_tiles_reject_coordinates_of_another_shape() {
    let shape = Shape::new((6u64, 10u64)).unwrap();
    let src: Vec<i32> = (0..60).collect();
    let a = Tensor::new(&src[..], Layout::row_major(shape).unwrap()).unwrap();
    let tiles = a.tiles([4, 4]).unwrap();
    let mut regs = Tensor::new(vec![-1i32; 16], "(4,4):(1,4)".parse::<Layout>().unwrap()).unwrap();
    for wrong in [(6u64, 12u64), (6, 11), (8, 10), (6, 9)] {
        let other = Shape::new(wrong).unwrap();
        let coords = IdentityTensor::new(&other).unwrap().tiles([4, 4]).unwrap();
        let e = tiles
            .transform_tile_if(2, &coords, &mut regs, |&x| x)
            .unwrap_err();
        let msg = e.message();
        assert!(
            msg.contains(&format!("({},{})", wrong.0, wrong.1)) && msg.contains("(6,10)"),
            "{msg}"
        );
        assert!(regs.data().iter().all(|&x| x == -1));
        let mut out = vec![0i32; 60];
        let mut b = Tensor::new(&mut out[..], Layout::row_major(shape).unwrap()).unwrap();
        let mut b_tiles = b.tiles_mut([4, 4]).unwrap();
        assert!(b_tiles.transform_tile_if(2, &coords, &regs, |x| x).is_err());
        assert!(out.iter().all(|&x| x == 0));
    }
    // The tensor's own shape, and a rank-3 identity for a rank-2 tensor.
    let own = IdentityTensor::new(&shape).unwrap().tiles([4, 4]).unwrap();
    tiles.transform_tile_if(2, &own, &mut regs, |&x| x).unwrap();
    assert_eq!(&regs.data()[..2], &[4, 14]); // tile 2 is rows 0..4, columns 4..8
    let rank3 = IdentityTensor::new(&Shape::new((6u64, 10u64, 1u64)).unwrap()).unwrap();
    assert!(tiles
        .transform_tile_if(0, &rank3.tiles([4, 4, 1]).unwrap(), &mut regs, |&x| x)
        .is_err());
}

/// Bad input: errors name the numbers (too many tiles, a tile coordinate past the grid).
#[test]
fn tiling_errors_name_the_values() {
    let data = [0u8; 64];
    let t = Tensor::new(&data[..], "(8,8):(1,8)".parse::<Layout>().unwrap()).unwrap();
    let e = zipped_divide(&t, [2, 2, 2]).unwrap_err();
    assert!(
        e.message().contains("3 tiles given for a layout of rank 2"),
        "{e}"
    );
    let e = local_tile(&t, [4, 4], (2, 0)).unwrap_err();
    assert!(e.message().contains("tile coordinate"), "{e}");
    assert!(t.tiles([4, 4]).unwrap().tile(4).is_err());
    // A whole-tensor view whose edge tiles overhang the data names the way to mask them.
    let short = Tensor::new(&data[..], "(6,10):(10,1)".parse::<Layout>().unwrap());
    let e = zipped_divide(&short.unwrap(), [4, 4]).unwrap_err();
    assert!(e.message().contains("a tile overhangs the data"), "{e}");
    assert!(e.message().contains("Tiles::transform_tile_if"), "{e}");
    // A thread whose part lies past the data is named with its thread layout.
    let m = Tensor::new(&data[..24], "(4,6):(6,1)".parse::<Layout>().unwrap()).unwrap();
    let threads: Layout = "(5,1):(1,5)".parse().unwrap();
    assert!(local_partition(&m, &threads, 3).is_ok());
    let e = local_partition(&m, &threads, 4).unwrap_err();
    assert!(
        e.message().contains("thread 4 of the threads (5,1):(1,5)"),
        "{e}"
    );
    // A tile walk names the rule its arguments break, with the values.
    let shape = Shape::new((4u64, 6u64)).unwrap();
    let l: Layout = "(4,6):(1,4)".parse().unwrap();
    let e = TileWalk::new(&shape, &[2, 2, 2], &[&l]).unwrap_err();
    assert!(
        e.message().contains("3 tiles given for a shape of rank 2"),
        "{e}"
    );
    let e = TileWalk::new(&shape, &[2, 2], &[&l; 5]).unwrap_err();
    assert!(e.message().contains("at most 4 layouts"), "{e}");
    let nine: Shape = "(1,1,1,1,1,1,1,1,1)".parse().unwrap();
    let e = TileWalk::new(&nine, &[1], &[]).unwrap_err();
    assert!(e.message().contains("the shape has rank 9"), "{e}");
}

/// Robustness: a mode with no leaves (`()`) and a tile larger than it is tiled like a
/// size-1 mode (its one coordinate 0 repeated over the tile), without panicking.
#[test]
fn an_empty_mode_tiles_without_panicking() {
    let l = Layout::new(Shape::new((4, ())).unwrap(), Stride::new((1, ())).unwrap()).unwrap();
    let data = [0u8; 4];
    let t = Tensor::new(&data[..], l).unwrap();
    let z = zipped_divide(&t, [2, 3]).unwrap();
    assert_eq!(z.layout().to_string(), "((2,3),(2,1)):((1,0),(2,0))");
    let id = IdentityTensor::new(&l.shape()).unwrap();
    assert_eq!(id.tiles([2, 3]).unwrap().count(), 2);
}

proptest! {
    /// `TileIter::for_each_while` visits exactly the iterator's tiles, in order, by
    /// reference, and stops at the first tile its closure declines (that tile seen,
    /// none after it).
    #[test]
    fn for_each_while_visits_the_iterators_tiles_and_stops_when_asked(
        dims in prop::collection::vec(1u64..9, 1..4),
        tiler in prop::collection::vec(1u64..5, 3),
        stop in 0usize..40,
    ) {
        let shape = Shape::new(dims.as_slice()).unwrap();
        let l = Layout::row_major(shape).unwrap();
        let walk = TileWalk::new(&shape, &tiler[..dims.len()], &[&l]).unwrap();
        let all: Vec<_> = walk.iter().collect();
        let mut seen = vec![];
        walk.iter().for_each_while(|t| {
            seen.push(*t);
            true
        });
        prop_assert_eq!(&seen, &all);
        let mut until = vec![];
        walk.iter().for_each_while(|t| {
            until.push(*t);
            until.len() <= stop
        });
        prop_assert_eq!(&until[..], &all[..all.len().min(stop + 1)]);
    }
}
