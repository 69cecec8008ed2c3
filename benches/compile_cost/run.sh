#!/usr/bin/env bash
# Compile-time cost of `layout!` (issue 3, item 5): builds two generated crates that
# differ only in whether 200 functions use a distinct static layout (`layout!`, its
# associated consts and `index_of`) or the same arithmetic written with plain integers.
# Dependencies (strideweave, its macros, syn, ...) are built first and excluded: each
# measurement touches the crate's lib.rs and rebuilds only that crate.
#
# Usage: benches/compile_cost/run.sh [REPEATS]   (default 5; prints the median seconds)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
repeats="${1:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="$work/target"

gen() { # gen NAME WITH_LAYOUTS
    local dir="$work/$1"
    mkdir -p "$dir/src"
    cp "$repo/rust-toolchain.toml" "$repo/Cargo.lock" "$dir/"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
strideweave = { path = "$repo/strideweave" }

[workspace]
TOML
    {
        [ "$2" = 1 ] && echo "use strideweave::{layout, StaticLayout};"
        for i in $(seq 0 199); do
            a=$((i % 7 + 2)); b=$((i % 5 + 1)); d=$((i + 10)); e=$((1000 + i)); k=$((i % (a * b * 4)))
            if [ "$2" = 1 ]; then
                echo "pub fn f$i() -> u64 { let l = layout!(($a,($b,4)):(1,($d,$e))); l.index_of($k).unwrap() + <layout_type!(($a,($b,4)):(1,($d,$e)))>::COSIZE }" \
                    | sed 's/<layout_type!/<strideweave::layout_type!/'
            else
                echo "pub fn f$i() -> u64 { let (a, b, d, e, k) = ($a, $b, $d, $e, $k); (k % a) + (k / a % b) * d + (k / (a * b)) * e + (a - 1) + (b - 1) * d + 3 * e + 1 }"
            fi
        done
    } > "$dir/src/lib.rs"
}

measure() { # measure NAME CARGO_SUBCOMMAND -> median seconds over $repeats rebuilds
    local dir="$work/$1" times=()
    (cd "$dir" && cargo "$2" --quiet --offline) # dependencies, once
    for _ in $(seq 1 "$repeats"); do
        touch "$dir/src/lib.rs"
        local t0 t1
        t0=$(date +%s.%N)
        (cd "$dir" && cargo "$2" --quiet --offline)
        t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc)")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

gen with_layouts 1
gen without_layouts 0
rustc --version
for cmd in check build; do
    with=$(measure with_layouts "$cmd")
    without=$(measure without_layouts "$cmd")
    echo "cargo $cmd (dev profile), median of $repeats: 200 layout! = ${with}s, none = ${without}s, difference = $(echo "$with - $without" | bc)s"
done
