#!/usr/bin/env bash
# Compile-time cost of algebra inside `layout!` (issue 9, item 6): two generated crates
# with 200 functions each; one writes an algebra expression with literal operands in
# `layout!` (compose, complement, zipped_divide, blocked_product, evaluated by the macro
# at expansion), the other writes the literal layout that expression evaluates to. Both
# then index the static layout, so the difference is the macro's algebra.
# Dependencies are built first and excluded: each measurement touches lib.rs and rebuilds
# only that crate.
#
# Usage: benches/compile_cost/algebra.sh [REPEATS]   (default 5; prints medians in seconds)
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
repeats="${1:-5}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# the calculator that writes the literal results, from the repository's own target dir
(cd "$repo" && cargo build --quiet -p strideweave-cli)
eval_bin="$repo/target/debug/strideweave"
export CARGO_TARGET_DIR="$work/target"

expr_of() { # expr_of I -> one algebra expression, distinct per I
    local i=$1 m=$(($1 % 8 + 1))
    case $((i % 4)) in
        0) echo "zipped_divide(($((8 * m)),8):(1,$((8 * m))), [2:1,4:1])" ;;
        1) echo "compose($((20 * m)):2, (5,4):(4,1))" ;;
        2) echo "blocked_product((4,$m):($m,1), (2,3):(1,2))" ;;
        3) echo "complement((2,2):(1,6), $((24 * m)))" ;;
    esac
}

gen() { # gen NAME ALGEBRA
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
        echo "use strideweave::{layout, StaticLayout};"
        for i in $(seq 0 199); do
            e=$(expr_of "$i")
            if [ "$2" = 1 ]; then arg="$e"; else arg=$("$eval_bin" eval "$e"); fi
            echo "pub fn f$i() -> u64 { let l = layout!($arg); l.index_of($((i % 16))).unwrap() + l.layout().cosize() }"
        done
    } > "$dir/src/lib.rs"
}

measure() { # measure NAME CARGO_ARGS... -> median seconds over $repeats rebuilds
    local dir="$work/$1" times=()
    shift
    (cd "$dir" && cargo "$@" --quiet --offline) # dependencies, once
    for _ in $(seq 1 "$repeats"); do
        touch "$dir/src/lib.rs"
        local t0 t1
        t0=$(date +%s.%N)
        (cd "$dir" && cargo "$@" --quiet --offline)
        t1=$(date +%s.%N)
        times+=("$(echo "$t1 - $t0" | bc)")
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

gen with_algebra 1
gen plain_layouts 0
rustc --version
for cmd in "check" "build --release"; do
    # shellcheck disable=SC2086
    with=$(measure with_algebra $cmd)
    # shellcheck disable=SC2086
    without=$(measure plain_layouts $cmd)
    echo "cargo $cmd, median of $repeats: 200 algebra layout! = ${with}s, 200 plain layout! = ${without}s, difference = $(echo "$with - $without" | bc)s"
done
