#!/usr/bin/env python3
"""Prints the ratio tables of benches/tensor_matrix.rs from criterion's estimates
(target/criterion/<group>/<bench>/new/estimates.json, median point estimates)."""
import json
import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "target", "criterion")


def median(group, bench):
    # criterion replaces '/' in group names by '_'.
    path = os.path.join(ROOT, group.replace("/", "_"), bench, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except OSError:
        return None


def fmt(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} us"
    return f"{ns:.0f} ns"


SHAPES = ["1x56x56x64", "1x57x55x40", "1x224x224x3", "8x28x28x257", "1x7x7x2048"]
PAIRS = ["f32_bf16", "f32_f16", "bf16_f32", "f16_f32", "bf16_f16", "f16_bf16",
         "f32_f32", "f16_f16", "bf16_bf16"]
PLACES = ["tiled_1x4x4x16", "tiled_1x8x8x32", "cblocked_4x4"]
SHORT = {"tiled_1x4x4x16": "t4", "tiled_1x8x8x32": "t8", "cblocked_4x4": "cb"}

print("Cells: time / contiguous Cast of the same tensor and pair; in parentheses, "
      "time / memcpy of the tiled side's bytes (CastTess: its padded output; "
      "CastUntess: its padded input).")
print()
print("| shape | pair | Cast | Cast / memcpy in | "
      + " | ".join(f"tess {SHORT[p]} | untess {SHORT[p]}" for p in PLACES) + " |")
print("|" + " --- |" * (4 + 2 * len(PLACES)))
met, total, worst, worst_mem = 0, 0, (0, ""), (0, "")
over = []
for s in SHAPES:
    for p in PAIRS:
        g = f"matrix/{s}/{p}"
        cast, mem = median(g, "contiguous_cast"), median(g, "memcpy_input")
        row = [s, p.replace("_", "->"), fmt(cast),
               f"{cast / mem:.2f}x" if cast and mem else "-"]
        for pl in PLACES:
            for kind, ref in (("tess", "memcpy_tess_out"), ("untess", "memcpy_untess_in")):
                t = median(g, f"{kind}_{pl}")
                m = median(g, f"{ref}_{pl}")
                if t and cast and m:
                    r, rm = t / cast, t / m
                    total += 1
                    met += r <= 1.5
                    name = f"{kind} {SHORT[pl]} {s} {p}"
                    if r > 1.5:
                        over.append((r, rm, name))
                    worst = max(worst, (r, name))
                    worst_mem = max(worst_mem, (rm, name))
                    row.append(f"{r:.2f}x ({rm:.2f}x)")
                else:
                    row.append("-")
        print("| " + " | ".join(row) + " |")
print()
print(f"cells <= 1.5x the contiguous Cast: {met} of {total}")
print(f"worst ratio to the contiguous Cast: {worst[0]:.2f}x ({worst[1]})")
print(f"worst ratio to a memcpy of the tiled side: {worst_mem[0]:.2f}x ({worst_mem[1]})")
print()
print("| threads group | 1 thread | all threads | speed-up |")
print("| --- | --- | --- | --- |")
for g in ["memcpy_input", "cast", "tess_tiled_1x4x4x16", "tess_cblocked_4x4",
          "untess_tiled_1x4x4x16", "argmax_2048x4096_axis1", "argmax_1048576x7_axis0",
          "argmax_262144x64_axis0", "argmax_tiled_1x4x4x16_axis3"]:
    a, b = median(f"threads/{g}", "threads_1"), median(f"threads/{g}", "threads_auto")
    print(f"| {g} | {fmt(a)} | {fmt(b)} | {a / b:.2f}x |" if a and b else f"| {g} | - | - | - |")
print()
print("| argmax | strideweave | baseline | speed-up |")
print("| --- | --- | --- | --- |")
for g, base in [("f32_256x4096_axis1", "scalar_loop"), ("f32_256x4096_axis0", "scalar_loop"),
                ("f32_1x57x55x40_tiled_axis3", "contiguous_input")]:
    a, b = median(f"argmax/{g}", "strideweave"), median(f"argmax/{g}", base)
    print(f"| {g} | {fmt(a)} | {base}: {fmt(b)} | {b / a:.2f}x |" if a and b else f"| {g} | - | - | - |")
print()
print("cells over 1.5x, by ratio to the contiguous Cast (ratio to memcpy of the tiled side):")
for r, rm, name in sorted(over, reverse=True):
    print(f"  {r:.2f}x ({rm:.2f}x)  {name}")

print()
print("Narrow channel tiles: time / contiguous Cast of the same tensor and pair.")
print()
NARROW = ["1x4x4x1", "1x8x16x1", "1x4x4x2", "1x4x4x4", "1x4x4x8"]
print("| shape | pair | Cast | " + " | ".join(f"tess {p} | untess {p}" for p in NARROW) + " |")
print("|" + " --- |" * (3 + 2 * len(NARROW)))
for s in ["1x56x56x64", "1x57x55x40"]:
    for p in ["f32_bf16", "bf16_f32", "f16_f16"]:
        g = f"narrow/{s}/{p}"
        cast = median(g, "contiguous_cast")
        row = [s, p.replace("_", "->"), fmt(cast)]
        for pl in NARROW:
            for kind in ("tess", "untess"):
                t = median(g, f"{kind}_{pl}")
                row.append(f"{t / cast:.2f}x" if t and cast else "-")
        print("| " + " | ".join(row) + " |")
