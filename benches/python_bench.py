"""Python-side benchmark of the `strideweave` package.

1. Indexing and algebra calls from Python: strideweave (Rust core) against pycute
   (NVIDIA's pure-Python CuTe, from the `nvidia-cutlass` wheel) on the same layouts.
2. `pack` of a 16M-element float32 array into bf16 `mla-tiled` against NumPy:
   `astype(bfloat16)` plus the tiling done by hand (pad, reshape, transpose, byte planes),
   and a plain contiguous f32 -> bf16 cast against `astype`.

Every ratio compares timings taken in the same run. Run (after `maturin develop --release
-m strideweave-py/Cargo.toml`, `pip install numpy ml_dtypes` and
`pip install --no-deps nvidia-cutlass` for pycute):

    python benches/python_bench.py [--quick]
"""

import statistics
import sys
import time

import numpy as np

import strideweave as sw

try:
    import pycute
except ImportError:  # pragma: no cover
    pycute = None

try:
    import ml_dtypes

    BF16 = ml_dtypes.bfloat16
except ImportError:  # pragma: no cover
    BF16 = None

QUICK = "--quick" in sys.argv


def timeit(fn, repeat=7, min_time=0.05):
    """Median seconds per call of `fn`, over `repeat` batches of enough calls each."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 >= min_time:
            break
        n *= 2
    times = []
    for _ in range(3 if QUICK else repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def fmt(s):
    for unit, f in (("s", 1), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)):
        if s * f >= 1:
            return f"{s * f:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def row(name, ours, theirs, what="pycute"):
    print(f"| {name} | {fmt(ours)} | {fmt(theirs)} | {theirs / ours:.1f}x |")


# --- layouts, in both libraries --------------------------------------------------------

LAYOUTS = {
    "(2,(3,4)):(1,(10,100))": ((2, (3, 4)), (1, (10, 100))),
    "((2,4),(4,2)):((8,1),(16,4))": (((2, 4), (4, 2)), ((8, 1), (16, 4))),
    "(3,(5,7),40):(1,(3,15),105)": ((3, (5, 7), 40), (1, (3, 15), 105)),
}


def indexing():
    print("### Indexing every coordinate (integer key), per call\n")
    print("| layout | strideweave | pycute | pycute / strideweave |")
    print("| --- | --- | --- | --- |")
    for text, (shape, stride) in LAYOUTS.items():
        ours = sw.Layout(text)
        theirs = pycute.Layout(shape, stride)
        n = ours.size
        assert [ours(i) for i in range(n)] == [theirs(i) for i in range(n)]
        t_ours = timeit(lambda: [ours(i) for i in range(n)]) / n
        t_theirs = timeit(lambda: [theirs(i) for i in range(n)]) / n
        row(f"`{text}` (size {n})", t_ours, t_theirs)
    coord_ours = sw.Layout("(2,(3,4)):(1,(10,100))")
    coord_theirs = pycute.Layout((2, (3, 4)), (1, (10, 100)))
    assert coord_ours((1, (2, 3))) == coord_theirs((1, (2, 3))) == 321
    row("hierarchical coordinate `(1,(2,3))`", timeit(lambda: coord_ours((1, (2, 3)))), timeit(lambda: coord_theirs((1, (2, 3)))))
    print()


def algebra():
    print("### Algebra calls on prebuilt operands, per call\n")
    print("| operation | strideweave | pycute | pycute / strideweave |")
    print("| --- | --- | --- | --- |")
    L, P, S = sw.Layout, pycute.Layout, sw.Layout
    cases = [
        ("compose(20:2, (5,4):(4,1))", S.compose, (L("20:2"), L("(5,4):(4,1)")),
         pycute.composition, (P(20, 2), P((5, 4), (4, 1)))),
        ("complement((2,2):(1,6), 24)", S.complement, (L("(2,2):(1,6)"), 24),
         pycute.complement, (P((2, 2), (1, 6)), 24)),
        ("logical_divide((4,2,3):(2,1,8), 4:2)", S.divide, (L("(4,2,3):(2,1,8)"), L("4:2")),
         pycute.logical_divide, (P((4, 2, 3), (2, 1, 8)), P(4, 2))),
        ("zipped_divide((8,8):(8,1), [2:1,4:1])", S.zipped_divide, (L("(8,8):(8,1)"), [L("2:1"), L("4:1")]),
         pycute.zipped_divide, (P((8, 8), (8, 1)), (P(2, 1), P(4, 1)))),
        ("coalesce((2,(1,6)):(1,(6,2)))", S.coalesce, (L("(2,(1,6)):(1,(6,2))"),),
         pycute.coalesce, (P((2, (1, 6)), (1, (6, 2))),)),
        ("logical_product((2,2):(1,2), 3:1)", S.logical_product, (L("(2,2):(1,2)"), L("3:1")),
         pycute.logical_product, (P((2, 2), (1, 2)), P(3, 1))),
    ]
    for name, f_ours, a_ours, f_theirs, a_theirs in cases:
        r_ours, r_theirs = f_ours(*a_ours), f_theirs(*a_theirs)
        # same function on the same domain (pycute may print an equivalent form)
        assert r_ours.size == pycute.size(r_theirs), name
        assert [r_ours(i) for i in range(r_ours.size)] == [r_theirs(i) for i in range(r_ours.size)], name
        row(f"`{name}`", timeit(lambda: f_ours(*a_ours)), timeit(lambda: f_theirs(*a_theirs)))
    print()


# --- pack against NumPy --------------------------------------------------------------------


def numpy_mla_tiled(x, tile):
    """astype(bfloat16) and MlaTiled(roles=.HWC) tiling by hand in NumPy."""
    n, h, w, c = x.shape
    _, th, tw, tc = tile
    nh, nw, nc = -(-h // th), -(-w // tw), -(-c // tc)
    bits = np.zeros((n, nh * th, nw * tw, nc * tc), np.uint16)
    bits[:, :h, :w, :c] = x.astype(BF16).view(np.uint16)
    t = bits.reshape(n, nh, th, nw, tw, nc, tc).transpose(0, 5, 1, 3, 2, 4, 6)
    planes = np.stack([(t & 0xFF).astype(np.uint8), (t >> 8).astype(np.uint8)], axis=-2)
    return planes.reshape(-1)


def packing():
    print("### pack of a 16M-element float32 array (bf16 out), per call\n")
    print("| case | strideweave | NumPy | NumPy / strideweave |")
    print("| --- | --- | --- | --- |")
    rng = np.random.default_rng(0)
    cases = [
        ("mla-tiled, tile (1,4,4,16), dims [1,256,256,256]", (1, 256, 256, 256), (1, 4, 4, 16)),
        ("mla-tiled, tile (1,4,4,16), awkward dims [1,511,513,64]", (1, 511, 513, 64), (1, 4, 4, 16)),
        ("mla-tiled, tile (1,4,4,16), channels 40: dims [1,647,647,40]", (1, 647, 647, 40), (1, 4, 4, 16)),
    ]
    for name, dims, tile in cases:
        x = rng.standard_normal(dims).astype(np.float32)
        spec = f"bf16[{','.join(map(str, dims))}] mla-tiled(roles=.HWC, tile=({','.join(map(str, tile))}), align=64)"
        ours = sw.pack(x, spec)
        ref = numpy_mla_tiled(x, tile)
        assert np.array_equal(ours, ref), name
        t_ours = timeit(lambda: sw.pack(x, spec), repeat=5, min_time=0.2)
        t_np = timeit(lambda: numpy_mla_tiled(x, tile), repeat=5, min_time=0.2)
        row(f"{name} ({x.size / 1e6:.1f}M)", t_ours, t_np)
    x = rng.standard_normal(1 << 24).astype(np.float32)
    out = np.empty(x.size, BF16)
    plan = sw.prepare(sw.Op.Cast, [f"f32[{x.size}]"], [f"bf16[{x.size}]"])
    plan.run([x], [out])
    assert np.array_equal(out, x.astype(BF16))
    t_run = timeit(lambda: plan.run([x], [out]), repeat=5, min_time=0.2)
    t_pack = timeit(lambda: sw.pack(x, f"bf16[{x.size}]"), repeat=5, min_time=0.2)
    t_np = timeit(lambda: x.astype(BF16), repeat=5, min_time=0.2)
    row("contiguous cast, `plan.run` into an existing array (16.8M)", t_run, t_np)
    row("contiguous cast, `pack` (allocates the result) (16.8M)", t_pack, t_np)
    print()


if __name__ == "__main__":
    print(f"strideweave vs pycute ({'pycute from nvidia-cutlass' if pycute else 'pycute missing'}), "
          f"NumPy {np.__version__}, Python {sys.version.split()[0]}\n")
    if pycute is not None:
        indexing()
        algebra()
    if BF16 is not None:
        packing()
