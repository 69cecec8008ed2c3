//! Runtime layouts are fixed-capacity values: indexing and the algebra on layouts of up
//! to 16 leaves must not touch the heap. A counting global allocator (per thread, so the
//! parallel test harness does not interfere) proves it.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::cell::Cell;
use std::hint::black_box;
use strideweave::{Coord, Layout, Shape};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    // `try_with`: the thread-local may be gone while a thread shuts down
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        bump();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        bump();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        bump();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of heap allocations it made.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(|c| c.get());
    let r = black_box(f());
    let after = ALLOCATIONS.with(|c| c.get());
    (r, after - before)
}

#[track_caller]
fn assert_no_alloc<R: std::fmt::Debug>(what: &str, f: impl FnOnce() -> R) -> R {
    let (r, n) = allocations(f);
    assert_eq!(n, 0, "{what} allocated {n} times (result {r:?})");
    r
}

fn lay(s: &str) -> Layout {
    s.parse().unwrap()
}

/// Rank-4 layouts of exactly 16 leaves: compact column-major, row-major, permuted.
fn sixteen_leaf_layouts() -> Vec<Layout> {
    let nested = Layout::col_major(
        Shape::new(([2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2], [2, 2, 2, 2])).unwrap(),
    )
    .unwrap();
    let row = Layout::row_major(
        Shape::new(([2, 4, 2, 2], [2, 2, 2, 2], [2, 2, 4, 2], [2, 2, 2, 2])).unwrap(),
    )
    .unwrap();
    let permuted = lay("((2,2,2,2),(2,2,2,2),(2,2,2,2),(2,2,2,2)):\
         ((4096,1,256,16),(8192,2,512,32),(16384,4,1024,64),(32768,8,2048,128))");
    vec![nested, row, permuted]
}

#[test]
fn the_counter_sees_allocations() {
    // guard against a counter that never counts
    let (_, n) = allocations(|| vec![1u8; 64]);
    assert!(n >= 1);
    let (_, n) = allocations(|| {
        lay("(4,6):(1,5)")
            .compose(&lay("6:1"))
            .map_err(|e| e.to_string())
    });
    assert!(n >= 1, "an error message is a String");
}

#[test]
fn indexing_sixteen_leaf_layouts_does_not_allocate() {
    for l in sixteen_leaf_layouts() {
        assert_eq!(l.leaf_count(), 16);
        // nested sub-coordinates last: see the ignored nested-coordinate bug in core_layout_spec
        let coord = Coord::new((1u64, 3u64, 5u64, [1u64, 1, 0, 1])).unwrap();
        let mixed = Coord::new((5u64, 9u64, 3u64, [1u64, 1, 0, 1])).unwrap();
        assert_no_alloc("index_of", || {
            let mut acc = 0u64;
            for i in (0..l.size()).step_by(97) {
                acc = acc.wrapping_add(l.index_of(black_box(i)).unwrap());
            }
            acc
        });
        assert_no_alloc("index(linear)", || {
            l.index(&Coord::linear(black_box(1234))).unwrap()
        });
        assert_no_alloc("index(hierarchical)", || {
            l.index(black_box(&coord)).unwrap()
        });
        assert_no_alloc("index(mixed)", || l.index(black_box(&mixed)).unwrap());
        assert_no_alloc("index_unbounded", || {
            l.index_unbounded(black_box(l.size() + 5))
        });
        assert_no_alloc("size/cosize/rank/depth", || {
            (l.size(), l.cosize(), l.rank(), l.depth())
        });
        assert_no_alloc("out-of-domain index_of", || {
            l.index_of(black_box(l.size())).is_err()
        });
    }
}

#[test]
fn algebra_on_sixteen_leaf_layouts_does_not_allocate() {
    let tiles2 = [lay("(2,2):(1,2)"), lay("(2,4):(1,2)")];
    let tile = lay("(4,2):(1,8)");
    let small = lay("(2,2):(1,2)");
    for a in sixteen_leaf_layouts() {
        let rank = a.rank();
        let order: Vec<usize> = (0..rank).rev().collect();
        assert_no_alloc("compose(layout)", || a.compose(&tile).unwrap());
        assert_no_alloc("compose(tiler)", || a.compose(&tiles2).unwrap());
        assert_no_alloc("compose(shape)", || {
            a.compose(&Shape::new((2, 4)).unwrap()).unwrap()
        });
        assert_no_alloc("can_compose", || a.can_compose(&tile).is_ok());
        assert_no_alloc("complement", || a.complement(a.cosize() * 4).unwrap());
        assert_no_alloc("divide", || a.divide(&tile).unwrap());
        assert_no_alloc("divide_tiler", || a.divide_tiler(&tiles2).unwrap());
        assert_no_alloc("zipped_divide", || a.zipped_divide(&tiles2).unwrap());
        assert_no_alloc("tiled_divide", || a.tiled_divide(&tiles2).unwrap());
        assert_no_alloc("coalesce", || a.coalesce());
        assert_no_alloc("filter", || a.filter());
        assert_no_alloc("right_inverse", || a.right_inverse().unwrap());
        assert_no_alloc("left_inverse", || a.left_inverse().unwrap());
        assert_no_alloc("logical_product", || a.logical_product(&small).unwrap());
        assert_no_alloc("blocked_product", || small.blocked_product(&a).unwrap());
        assert_no_alloc("raked_product", || small.raked_product(&a).unwrap());
        assert_no_alloc("concat", || {
            a.get(0).unwrap().concat(&a.get(1).unwrap()).unwrap()
        });
        assert_no_alloc("append", || {
            a.get(0).unwrap().append(&a.get(1).unwrap()).unwrap()
        });
        assert_no_alloc("get/slice", || (a.get(2).unwrap(), a.slice(1, 3).unwrap()));
        assert_no_alloc("permute", || a.permute(black_box(&order)).unwrap());
        assert_no_alloc("broadcast_to", || a.broadcast_to(&a.shape()).unwrap());
        assert_no_alloc("equality", || a == black_box(a));
    }
}

#[test]
fn broadcast_of_a_sixteen_leaf_layout_does_not_allocate() {
    let l = lay(
        "((1,2,1,2),(2,1,2,1),(1,1,2,2),(2,2,1,1)):((0,1,0,2),(4,0,8,0),(0,0,16,32),(64,128,0,0))",
    );
    assert_eq!(l.leaf_count(), 16);
    let target: Shape = "((3,2,3,2),(2,3,2,3),(3,3,2,2),(2,2,3,3))".parse().unwrap();
    let b = assert_no_alloc("broadcast_to", || l.broadcast_to(&target).unwrap());
    assert_eq!(b.shape(), target);
}

#[test]
fn structural_queries_on_sixteen_leaf_layouts_do_not_allocate() {
    for l in sixteen_leaf_layouts() {
        assert_no_alloc("is_injective", || l.is_injective());
        let target = Shape::new(l.size()).unwrap();
        assert_no_alloc("uniform_preimage_extent", || {
            l.uniform_preimage_extent(&target)
        });
    }
}
