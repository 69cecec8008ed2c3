//! Argmax: the vector row and column loops, the scalar loop and every thread count give
//! the spec's answer (first index on ties, NaN of either sign wins and the first NaN wins,
//! -0.0 ties +0.0, padding never read) on random specs: contiguous, strided and tiled
//! inputs, every axis, values drawn to make ties, zeros of both signs and NaNs common.

use half::{bf16, f16};
use proptest::prelude::*;
use strideweave::tensor::convert::ConvertPath;
use strideweave::tensor::{prepare, AlignedBytes, DType, Op, RunOptions, TensorSpec};

mod kernel_oracle;
use kernel_oracle::{for_each_coord, spec, Addresses};

/// The values a test draws from: ties, signed zeros, infinities, NaNs of both signs.
const VALUES: [f32; 10] = [
    f32::NEG_INFINITY,
    -1.5,
    -0.0,
    0.0,
    1.0,
    2.5,
    f32::INFINITY,
    f32::NAN,
    -f32::NAN,
    1e-40,
];

fn encode(d: DType, x: f32) -> Vec<u8> {
    match d {
        DType::F32 => x.to_le_bytes().to_vec(),
        DType::F16 => f16::from_f32(x).to_le_bytes().to_vec(),
        _ => bf16::from_f32(x).to_le_bytes().to_vec(),
    }
}

fn decode(d: DType, b: &[u8]) -> f32 {
    match d {
        DType::F32 => f32::from_le_bytes(b.try_into().unwrap()),
        DType::F16 => f16::from_le_bytes(b.try_into().unwrap()).to_f32(),
        _ => bf16::from_le_bytes(b.try_into().unwrap()).to_f32(),
    }
}

/// The spec's rule, written out on a list of values.
fn spec_argmax(v: &[f32]) -> usize {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i;
    }
    let max = v.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    v.iter().position(|&x| x == max).unwrap()
}

/// Builds an input of `s` whose logical elements are `VALUES[pick(i)]` (padding and gaps
/// hold NaN bytes, which must never win), runs argmax on every path and thread count,
/// and compares each with the rule applied to the logical values.
fn check(s: &TensorSpec, axis: usize, picks: &[u8], out: &str) {
    let ext = s.dims.extents().to_vec();
    let n: u64 = ext.iter().product();
    let span = s.required_bytes().unwrap() as usize;
    let w = s.dtype.width() as usize;
    let mut buf = vec![0u8; span];
    for c in buf.chunks_mut(w) {
        let nan = encode(s.dtype, f32::NAN);
        c.copy_from_slice(&nan[..c.len()]);
    }
    let mut vals = vec![0f32; n as usize];
    let addresses = Addresses::new(s);
    for_each_coord(&ext, |i, c| {
        let x = VALUES[picks[i % picks.len()] as usize % VALUES.len()];
        let bytes = encode(s.dtype, x);
        for (b, &byte) in bytes.iter().enumerate() {
            buf[addresses.at(c, b as u64)] = byte;
        }
        vals[i] = decode(s.dtype, &bytes);
    });
    // Expected: for each output coordinate, the rule over the reduced axis.
    let mut out_ext = ext.clone();
    out_ext.remove(axis);
    let m: u64 = out_ext.iter().product();
    let mut want = Vec::new();
    for o in 0..m {
        let mut oc = vec![0u64; out_ext.len()];
        let mut t = o;
        for ax in (0..out_ext.len()).rev() {
            oc[ax] = t % out_ext[ax];
            t /= out_ext[ax];
        }
        let run: Vec<f32> = (0..ext[axis])
            .map(|k| {
                let mut c = oc.clone();
                c.insert(axis, k);
                let lin = c.iter().zip(&ext).fold(0u64, |a, (x, e)| a * e + x);
                vals[lin as usize]
            })
            .collect();
        want.push(spec_argmax(&run) as i64);
    }
    let dims: Vec<String> = out_ext.iter().map(u64::to_string).collect();
    let out_spec = spec(&format!("{out}[{}]", dims.join(",")));
    let plan = prepare(Op::Argmax { axis }, &[*s], &[out_spec]).unwrap();
    let input = AlignedBytes::from_slice(&buf);
    let ow = if out == "i32" { 4 } else { 8 };
    for path in ConvertPath::ALL.into_iter().filter(|p| p.is_available()) {
        for threads in [1, 2, 3] {
            let mut o = AlignedBytes::filled(m as usize * ow, 0xEE);
            let opts = RunOptions::new().path(path).threads(threads);
            plan.run_with_options(&[input.as_slice()], &mut [o.as_mut_slice()], opts)
                .unwrap();
            let got: Vec<i64> = o
                .as_slice()
                .chunks_exact(ow)
                .map(|c| {
                    if ow == 4 {
                        i64::from(i32::from_le_bytes(c.try_into().unwrap()))
                    } else {
                        i64::from_le_bytes(c.try_into().unwrap())
                    }
                })
                .collect();
            assert_eq!(got, want, "{s} axis {axis}: {path:?}, {threads} threads");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn argmax_matches_the_rule_on_every_path_axis_and_layout(
        dims in prop::collection::vec(1u64..40, 1..4),
        axis_pick in 0usize..4,
        dtype in 0usize..3,
        layout in 0u8..3,
        pad in 1u64..3,
        picks in prop::collection::vec(0u8..10, 1..64),
        wide in any::<bool>(),
    ) {
        let d = ["f32", "f16", "bf16"][dtype];
        let axis = axis_pick % dims.len();
        let list: Vec<String> = dims.iter().map(u64::to_string).collect();
        let w = if d == "f32" { 4 } else { 2 };
        let placement = match layout {
            0 => "contiguous".to_string(),
            1 => {
                let mut st = vec![0u64; dims.len()];
                let mut acc = w * pad;
                for ax in (0..dims.len()).rev() {
                    st[ax] = acc;
                    acc *= dims[ax] + pad - 1;
                }
                let s: Vec<String> = st.iter().map(u64::to_string).collect();
                format!("strided({})", s.join(","))
            }
            _ => {
                // Tiled: the last axis is C, the one before W (when present).
                let (roles, tile) = match dims.len() {
                    1 => ("C", "(1,1,1,16)"),
                    2 => ("WC", "(1,1,2,16)"),
                    _ => ("HWC", "(1,3,2,16)"),
                };
                format!("mla-tiled(roles={roles}, tile={tile}, align=64)")
            }
        };
        let s = spec(&format!("{d}[{}] {placement}", list.join(",")));
        check(&s, axis, &picks, if wide { "i64" } else { "i32" });
    }
}

/// Shapes where the vector loops have full blocks, several blocks and a masked tail:
/// `[256, 4096]`-like rows and columns, reduced along both axes.
#[test]
fn argmax_long_rows_and_many_columns_on_every_path() {
    let picks: Vec<u8> = (0..997u32).map(|i| ((i * 7 + i / 13) % 7) as u8).collect();
    for d in ["f32", "f16", "bf16"] {
        for dims in ["5,1000", "300,70", "3,5,130"] {
            let s = spec(&format!("{d}[{dims}]"));
            for axis in 0..s.dims.rank() {
                check(&s, axis, &picks, "i64");
            }
        }
    }
    // NaNs late in a long row, and a NaN before a larger value.
    let mut picks = vec![4u8; 900];
    picks[700] = 8;
    picks[800] = 6;
    check(&spec("f32[2,900]"), 1, &picks, "i32");
    check(&spec("f32[900,2]"), 0, &picks, "i32");
}

/// Fewer than 64 columns reduced along a long first axis (`f32[100003,7]` along axis 0):
/// the column kernel splits the rows among four chains of independent compares (row `k`
/// into chain `k % 4`) and merges them by the rule; on 2 and 3 threads (as `check` runs
/// every case) so few outputs, or output chunks under 16 columns, split the reduced axis
/// into one range of rows per part, merged by the rule too. Every way a tie, a NaN of
/// either sign, -0.0 against +0.0 or the maximum can fall across chains and ranges, and
/// row counts that leave rows over, must give the scalar rule's index; so must a few
/// long rows reduced along the last axis, split the same way.
/// Spec requirement (placements, Argmax): ties give the smallest index, NaN of either
/// sign beats every number and the first NaN wins, -0.0 ties +0.0.
#[test]
fn argmax_along_a_long_first_axis_merges_its_row_chains_by_the_rule() {
    for d in ["f32", "f16", "bf16"] {
        for dims in ["2,301", "3,1000", "1,77"] {
            let n = 1001;
            let mixed: Vec<u8> = (0..n).map(|i| ((i * 7 + i / 5) % 10) as u8).collect();
            let mut late = vec![4u8; n];
            late[n - 3] = 8;
            late[n - 200] = 6;
            for picks in [&mixed, &late] {
                check(&spec(&format!("{d}[{dims}]")), 1, picks, "i64");
            }
        }
        for rows in [8u64, 9, 10, 11, 12, 13, 37, 64, 101] {
            for cols in [1u64, 3, 7, 16, 17, 40, 64, 100] {
                let n = (rows * cols) as usize;
                let s = spec(&format!("{d}[{rows},{cols}]"));
                // Few distinct values, so ties and signed zeros meet across chains;
                // one mix with NaNs (both signs), one without.
                let mixed: Vec<u8> = (0..n).map(|i| ((i * 7 + i / 5) % 10) as u8).collect();
                let numbers: Vec<u8> = (0..n)
                    .map(|i| [1u8, 2, 3, 5, 6][(i * 3 + i / 11) % 5])
                    .collect();
                check(&s, 0, &mixed, "i64");
                check(&s, 0, &numbers, "i32");
                // A single NaN or maximum in each chain position, late in the column.
                for at in rows.saturating_sub(5)..rows {
                    let mut one = vec![4u8; n];
                    for c in 0..cols as usize {
                        one[at as usize * cols as usize + c] = if c % 2 == 0 { 8 } else { 6 };
                    }
                    check(&s, 0, &one, "i32");
                }
            }
        }
    }
}

/// Inputs of 1 MiB and more, where the loops that read by masked loads ask for their
/// lines ahead (software prefetch, which masked loads do not start on Zen 5): column
/// blocks of fewer than 16 columns along a long first axis (rows up to 128 bytes apart,
/// and 160 bytes apart), short rows transposed sixteen at a time, and the 64-column
/// blocks, which ask for whole row blocks rows ahead (rows less than 4 KiB apart; 4400
/// bytes apart, not asked). The hints change
/// no index: each case against the rule, NaNs of both signs and ties late in the axis.
/// Spec requirement (placements, Argmax): ties give the smallest index, NaN of either
/// sign beats every number and the first NaN wins, -0.0 ties +0.0.
#[test]
fn argmax_of_inputs_past_l2_that_prefetch_matches_the_rule() {
    for (dims, axis) in [
        ("f32[40009,7]", 0),
        ("bf16[70001,9]", 0),
        ("f32[8193,40]", 0),
        ("f32[22001,12]", 1),
        ("f16[33001,20]", 1),
        ("f32[5003,64]", 0),
        ("bf16[9001,72]", 0),
        ("f32[1201,300]", 0),
        ("f32[300,1100]", 0),
    ] {
        let s = spec(dims);
        let n = s.dims.extents().iter().product::<u64>() as usize;
        let picks: Vec<u8> = (0..n).map(|i| ((i * 7 + i / 13) % 10) as u8).collect();
        let mut late = vec![4u8; n];
        for (k, v) in late.iter_mut().enumerate().rev().take(600) {
            *v = [6, 8, 3, 9, 0][k % 5];
        }
        check(&s, axis, &picks, "i64");
        check(&s, axis, &late, "i32");
    }
}

/// Short rows reduced along the last axis: sixteen rows at a time, one per lane, by a
/// transpose per 16 elements (2 to 32 elements) or, for rows of 2 to 8 elements stored
/// back to back, by lane permutations of the 16 rows' vectors; the rest (1 element, 33
/// to 64, the last rows of an outer axis) by the row kernel, whose second pass for
/// fewer than 64 elements is one 64-bit mask. Including the last sixteen rows of the
/// buffer, padded strided rows and outer axes that end mid-batch, with ties, signed
/// zeros and NaNs (early and late).
/// Spec requirement (placements, Argmax): ties give the smallest index, NaN of either
/// sign beats every number and the first NaN wins, -0.0 ties +0.0.
#[test]
fn argmax_short_rows_sixteen_at_a_time_on_every_path() {
    let picks: Vec<u8> = (0..211u32).map(|i| ((i * 5 + i / 7) % 10) as u8).collect();
    let mut late_nan = vec![5u8; 211];
    late_nan[150] = 7;
    late_nan[190] = 8;
    for d in ["f32", "f16", "bf16"] {
        let w = if d == "f32" { 4 } else { 2 };
        for n in (1..=18u64).chain([31, 32, 33, 40, 47, 63, 64]) {
            for dims in [vec![32, n], vec![37, n], vec![3, 19, n]] {
                let list: Vec<String> = dims.iter().map(u64::to_string).collect();
                let axis = dims.len() - 1;
                let dense = spec(&format!("{d}[{}]", list.join(",")));
                check(&dense, axis, &picks, "i64");
                check(&dense, axis, &late_nan, "i32");
                let mut st = vec![0u64; dims.len()];
                let mut acc = w;
                for ax in (0..dims.len()).rev() {
                    st[ax] = acc;
                    acc *= dims[ax] + 1;
                }
                let st: Vec<String> = st.iter().map(u64::to_string).collect();
                let s = spec(&format!(
                    "{d}[{}] strided({})",
                    list.join(","),
                    st.join(",")
                ));
                check(&s, axis, &picks, "i32");
                check(&s, axis, &late_nan, "i64");
            }
        }
    }
}

/// Rows whose elements are 2 to 4 elements apart (an interleaved view), long and short,
/// reduced along that axis: 16 elements per masked load and lane permutation, lanes
/// reduced at the end, with ties, signed zeros and NaNs late in the row.
#[test]
fn argmax_along_narrow_strides_on_every_path() {
    let picks: Vec<u8> = (0..389u32).map(|i| ((i * 3 + i / 11) % 10) as u8).collect();
    let mut late_nan = vec![4u8; 389];
    late_nan[300] = 8;
    late_nan[350] = 7;
    for d in ["f32", "f16", "bf16"] {
        let w = if d == "f32" { 4 } else { 2 };
        for k in [2u64, 3, 4] {
            if k * w > 8 {
                continue;
            }
            for n in [1u64, 5, 16, 17, 40, 389] {
                let s = spec(&format!("{d}[3,{n}] strided({},{})", n * k * w + 8, k * w));
                check(&s, 1, &picks, "i64");
                check(&s, 1, &late_nan, "i32");
            }
        }
    }
}

/// A reduced axis that is not the dense one while the axis before it is (a column-major
/// matrix, or a transposed view, reduced along its rows): those rows are the columns of
/// the column kernel. Several outer axes, partial vectors, ties, signed zeros and NaNs.
#[test]
fn argmax_along_a_strided_axis_with_a_dense_outer_axis_on_every_path() {
    let picks: Vec<u8> = (0..389u32).map(|i| ((i * 7 + i / 13) % 10) as u8).collect();
    let mut late_nan = vec![3u8; 389];
    late_nan[200] = 8;
    late_nan[301] = 7;
    for d in ["f32", "f16", "bf16"] {
        let w: u64 = if d == "f32" { 4 } else { 2 };
        for (m, n) in [(1u64, 5u64), (17, 3), (40, 33), (70, 1), (333, 13)] {
            // [m, n] column-major, reduced along axis 1 (stride m elements).
            let s = spec(&format!("{d}[{m},{n}] strided({w},{})", m * w));
            check(&s, 1, &picks, "i64");
            check(&s, 1, &late_nan, "i32");
            // [2, m, n] with the batch outermost and a padded batch stride.
            let s = spec(&format!(
                "{d}[2,{m},{n}] strided({},{w},{})",
                m * n * w + 64,
                m * w
            ));
            check(&s, 2, &picks, "i64");
        }
    }
}

/// Reduced along an outer axis while the inner axis is an interleaved view (elements 2
/// to 4 apart) or dense only along the innermost of several inner axes: runs of columns
/// along the innermost inner axis (masked byte loads and a lane permutation for the
/// interleaved ones). Partial vectors, ties, signed zeros, late NaNs.
#[test]
fn argmax_over_interleaved_or_split_inner_columns_on_every_path() {
    let picks: Vec<u8> = (0..389u32).map(|i| ((i * 5 + i / 7) % 10) as u8).collect();
    let mut late_nan = vec![2u8; 389];
    late_nan[250] = 8;
    late_nan[330] = 7;
    for d in ["f32", "f16", "bf16"] {
        let w: u64 = if d == "f32" { 4 } else { 2 };
        for k in [2u64, 3, 4] {
            if 15 * k * w + w > 128 {
                continue;
            }
            for (m, n) in [(3u64, 1u64), (5, 17), (13, 40), (2, 301)] {
                // [m, n] reduced along axis 0, columns k elements apart.
                let s = spec(&format!(
                    "{d}[{m},{n}] strided({},{})",
                    n * k * w + 8,
                    k * w
                ));
                check(&s, 0, &picks, "i64");
                check(&s, 0, &late_nan, "i32");
            }
        }
        // [4, 3, 20] reduced along axis 0: inner axes (3, 20) with a padded middle stride.
        let s = spec(&format!(
            "{d}[4,3,20] strided({},{},{w})",
            3 * 24 * w,
            24 * w
        ));
        check(&s, 0, &picks, "i64");
        check(&s, 0, &late_nan, "i32");
    }
}

/// Tiled inputs larger than one slab of the tiled Argmax (128 KiB of
/// unpacked elements): whole tiles along the outermost axis longer than one are
/// unpacked and reduced slab by slab (several slabs, a partial last tile, slabs of one
/// outer index), along every axis, MlaTiled with and without D and MlaCBlocked, with
/// ties, signed zeros and NaNs; on 2 and 3 threads each worker unpacks its own runs of
/// whole tiles slab by slab (uneven splits, a run ending at the partial last tile).
/// Spec requirement (placements, Argmax): padding of a tiled input is never read; ties
/// give the smallest index, NaN of either sign wins and the first NaN wins.
#[test]
fn argmax_of_tiled_inputs_larger_than_a_slab_on_every_path() {
    let picks: Vec<u8> = (0..997u32).map(|i| ((i * 7 + i / 13) % 10) as u8).collect();
    let cases = [
        "f32[1,57,55,40] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)",
        "bf16[2,3,30,41,20] mla-tiled(roles=.DHWC, tile=(2,4,8,16), align=128)",
        "f32[1,61,33,48] mla-cblocked(tile=(4,4), align=64)",
        "f16[3,41,37,24] mla-cblocked(tile=(2,4), align=64)",
    ];
    for c in cases {
        let s = spec(c);
        for axis in 0..s.dims.rank() {
            check(&s, axis, &picks, "i32");
        }
    }
}
