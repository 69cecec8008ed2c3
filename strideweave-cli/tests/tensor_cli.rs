//! The `plan`, `pack`, `unpack` and `argmax` subcommands (`spec/placements.md`,
//! "The command line").

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use strideweave::tensor::convert::{bf16_to_f32_bits, f32_to_bf16_bits};

fn bf16_round(x: f32) -> f32 {
    f32::from_bits(bf16_to_f32_bits(f32_to_bf16_bits(x.to_bits())))
}

fn bf16_le(x: f32) -> [u8; 2] {
    f32_to_bf16_bits(x.to_bits()).to_le_bytes()
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_strideweave"))
}

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("sw-tensor-cli-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
    fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn f32_file(path: &Path, vals: &[f32]) {
    fs::write(
        path,
        vals.iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
}

/// Asserts a failed run: exit 1 and exactly one stderr line naming `rule`.
fn assert_rejected(out: &Output, rule: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err:?}");
    assert!(err.contains(rule), "`{rule}` not named in {err:?}");
}

const TILED: &str = "bf16[1,5,7,20] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)";

/// Asserts the command succeeded, showing its stderr otherwise.
fn assert_ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn plan_prints_required_bytes_and_alignment_per_port() {
    let out = run(&["plan", "--from", "f32[1,5,7,20]", "--to", TILED]);
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("input 0: f32[1,5,7,20] contiguous: 2800 bytes, align 4"),
        "{s}"
    );
    assert!(
        s.contains(&format!("output 0: {TILED}: 4096 bytes, align 2")),
        "{s}"
    );
    let out = run(&[
        "plan",
        "--from",
        "f32[2,3] strided(16,4)",
        "--to",
        "bf16[2,3] strided(8,2)",
    ]);
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("28 bytes") && s.contains("14 bytes"), "{s}");
}

#[test]
fn plan_must_reject_cases_print_one_line_naming_the_rule() {
    let cases = [
        ("f32[1,1,1,1,1,1,1]", "f32[1,1,1,1,1,1,1]", "too-many-dims"),
        ("f32[2,3] strided(12,-4)", "f32[2,3]", "negative-stride"),
        ("f32[2,3] strided(12,2)", "f32[2,3]", "misaligned-stride"),
        ("f32[3,2] strided(8,12)", "f32[3,2]", "overlapping-strides"),
        ("f32[2,3] strided(0,4)", "f32[2,3]", "zero-stride"),
        (
            "f32[2,16]",
            "bf16[2,16] mla-tiled(roles=HC, tile=(1,2,1,16), align=48)",
            "align-not-power-of-two",
        ),
        (
            "f32[2,16]",
            "bf16[2,16] mla-tiled(roles=CC, tile=(1,1,1,16), align=64)",
            "role-twice",
        ),
        (
            "f32[2,16]",
            "bf16[2,16] mla-tiled(roles=.HC, tile=(1,2,1,16), align=64)",
            "roles-length",
        ),
        (
            "f32[2,16]",
            "bf16[2,16] mla-cblocked(tile=(2,2), align=64)",
            "rank-below-three",
        ),
        (
            "f32[4294967296,4294967296]",
            "f32[4294967296,4294967296]",
            "overflow",
        ),
        ("f32[-2]", "f32[2]", "negative-extent"),
    ];
    for (from, to, rule) in cases {
        let out = run(&["plan", "--from", from, "--to", to]);
        assert_rejected(&out, rule);
    }
}

#[test]
fn pack_creates_out_with_exactly_the_required_size_and_unpack_round_trips() {
    let d = Dir::new("roundtrip");
    let vals: Vec<f32> = (0..700)
        .map(|i| bf16_round(i as f32 * 0.25 - 80.0))
        .collect();
    f32_file(&d.path("in.bin"), &vals);
    let out = run(&[
        "pack",
        "--from",
        "f32[1,5,7,20]",
        "--to",
        TILED,
        p(&d.path("in.bin")),
        p(&d.path("packed.bin")),
    ]);
    assert_ok(&out);
    let packed = fs::read(d.path("packed.bin")).unwrap();
    assert_eq!(packed.len(), 4096);
    let out = run(&[
        "unpack",
        "--from",
        TILED,
        "--to",
        "f32[1,5,7,20]",
        p(&d.path("packed.bin")),
        p(&d.path("back.bin")),
    ]);
    assert_ok(&out);
    assert_eq!(
        fs::read(d.path("back.bin")).unwrap(),
        fs::read(d.path("in.bin")).unwrap()
    );
}

#[test]
fn pack_updates_an_existing_large_enough_out_in_place_keeping_gap_bytes() {
    let d = Dir::new("inplace");
    f32_file(&d.path("in.bin"), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    // OUT exists with 20 bytes of 0xEE: more than the 14 required.
    fs::write(d.path("out.bin"), [0xEEu8; 20]).unwrap();
    let out = run(&[
        "pack",
        "--from",
        "f32[2,3] strided(16,4)",
        "--to",
        "bf16[2,3] strided(8,2)",
        p(&d.path("in.bin")),
        p(&d.path("out.bin")),
    ]);
    assert_ok(&out);
    let o = fs::read(d.path("out.bin")).unwrap();
    assert_eq!(o.len(), 20);
    assert_eq!(o[0..2], bf16_le(1.0));
    assert_eq!(o[8..10], bf16_le(5.0));
    assert_eq!(o[6..8], [0xEE, 0xEE], "row gap keeps its contents");
    assert!(o[14..].iter().all(|&b| b == 0xEE));
    // A too-small OUT is replaced by a zero-filled file of exactly the required size.
    fs::write(d.path("small.bin"), [0xEEu8; 3]).unwrap();
    let out = run(&[
        "pack",
        "--from",
        "f32[2,3] strided(16,4)",
        "--to",
        "bf16[2,3] strided(8,2)",
        p(&d.path("in.bin")),
        p(&d.path("small.bin")),
    ]);
    assert!(out.status.success());
    let o = fs::read(d.path("small.bin")).unwrap();
    assert_eq!(o.len(), 14);
    assert_eq!(o[6..8], [0, 0]);
}

#[test]
fn errors_leave_out_uncreated_or_unmodified() {
    let d = Dir::new("errors");
    f32_file(&d.path("short.bin"), &[1.0; 5]);
    let out = run(&[
        "pack",
        "--from",
        "f32[2,3]",
        "--to",
        "bf16[2,3]",
        p(&d.path("short.bin")),
        p(&d.path("new.bin")),
    ]);
    assert_rejected(&out, "input-too-short");
    assert!(!d.path("new.bin").exists());
    fs::write(d.path("keep.bin"), [0x42u8; 64]).unwrap();
    let out = run(&[
        "pack",
        "--from",
        "f32[3,2] strided(8,12)",
        "--to",
        "bf16[3,2]",
        p(&d.path("short.bin")),
        p(&d.path("keep.bin")),
    ]);
    assert_rejected(&out, "overlapping-strides");
    assert_eq!(fs::read(d.path("keep.bin")).unwrap(), vec![0x42u8; 64]);
    let out = run(&[
        "pack",
        "--from",
        TILED,
        "--to",
        "f32[1,5,7,20]",
        p(&d.path("short.bin")),
        p(&d.path("keep.bin")),
    ]);
    assert_rejected(&out, "unsupported-placement");
    assert_eq!(fs::read(d.path("keep.bin")).unwrap(), vec![0x42u8; 64]);
}

#[test]
fn an_output_needing_zero_bytes_is_an_empty_file() {
    let d = Dir::new("empty");
    fs::write(d.path("in.bin"), []).unwrap();
    let out = run(&[
        "pack",
        "--from",
        "f32[0,5]",
        "--to",
        "bf16[0,5]",
        p(&d.path("in.bin")),
        p(&d.path("out.bin")),
    ]);
    assert_ok(&out);
    assert_eq!(fs::read(d.path("out.bin")).unwrap().len(), 0);
}

#[test]
fn argmax_writes_the_contiguous_index_tensor() {
    let d = Dir::new("argmax");
    f32_file(&d.path("in.bin"), &[1.0, 9.0, 3.0, 7.0, f32::NAN, 2.0]);
    let argmax = |axis: &str, from: &str, to: &str, out: &str| {
        let (input, output) = (d.path("in.bin"), d.path(out));
        run(&[
            "argmax",
            "--axis",
            axis,
            "--from",
            from,
            "--to",
            to,
            p(&input),
            p(&output),
        ])
    };
    let out = argmax("1", "f32[2,3]", "i64", "out.bin");
    assert_ok(&out);
    let o = fs::read(d.path("out.bin")).unwrap();
    assert_eq!(o.len(), 16);
    assert_eq!(i64::from_le_bytes(o[0..8].try_into().unwrap()), 1);
    assert_eq!(i64::from_le_bytes(o[8..16].try_into().unwrap()), 1);
    let out = argmax("0", "f32[2,3]", "i32", "o32.bin");
    assert!(out.status.success());
    let o = fs::read(d.path("o32.bin")).unwrap();
    let idx: Vec<i32> = o
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(idx, vec![1, 1, 0], "NaN in column 1 wins");
    let out = argmax("0", "f32[0,3]", "i32", "e.bin");
    assert_rejected(&out, "empty-reduced-axis");
    assert!(!d.path("e.bin").exists());
    let out = argmax("1", "f32[2,3]", "f32", "e.bin");
    assert_rejected(&out, "unsupported-dtype");
    // A whole spec as --to: the message says --to takes the index dtype only.
    let out = argmax("1", "f32[2,3]", "i64[2]", "e.bin");
    assert_rejected(
        &out,
        "argmax --to takes the index dtype only (i32 or i64), not a spec: `i64[2]`",
    );
    assert!(!d.path("e.bin").exists());
    // A negative axis is the rule's one-line error (spec, the command line: one stderr
    // line naming the rule, exit 1, OUT not created) saying how axes are counted, not
    // clap's hint to pass `-1` after `--`.
    let out = argmax("-1", "f32[2,3]", "i32", "e.bin");
    assert_rejected(&out, "axis-out-of-range: axis -1 of a rank-2 tensor");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no negative axes"), "{err}");
    assert!(!err.contains("use '-- -1'"), "{err}");
    assert!(!d.path("e.bin").exists());
}

/// `--threads N` chooses how many parts the work is split into (0, the default, is
/// automatic): every count writes the same bytes, for pack, unpack and argmax, and a
/// count that is not a number is a usage error that creates nothing.
/// Spec requirement (placements, the command line): pack, unpack and argmax write the
/// output's bytes; on error OUT is not created.
#[test]
fn threads_option_gives_identical_bytes_for_every_count() {
    let d = Dir::new("threads");
    let dims = "1,57,55,40";
    let n = 57 * 55 * 40;
    let vals: Vec<f32> = (0..n)
        .map(|i| ((i * 37) % 1001) as f32 * 0.5 - 250.0)
        .collect();
    let input = d.path("in.bin");
    f32_file(&input, &vals);
    let tiled = format!("bf16[{dims}] mla-tiled(roles=.HWC, tile=(1,4,4,16), align=64)");
    let from = format!("f32[{dims}]");
    let mut seen: Vec<[Vec<u8>; 3]> = Vec::new();
    for threads in ["0", "1", "2", "5"] {
        let file = |what: &str| d.path(&format!("{what}-{threads}.bin"));
        let (packed, back, idx) = (file("packed"), file("back"), file("idx"));
        let pack = [
            "pack",
            "--threads",
            threads,
            "--from",
            &from,
            "--to",
            &tiled,
        ];
        assert_ok(&run(&[&pack[..], &[p(&input), p(&packed)]].concat()));
        let to = format!("bf16[{dims}]");
        let unpack = [
            "unpack",
            "--threads",
            threads,
            "--from",
            &tiled,
            "--to",
            &to,
        ];
        assert_ok(&run(&[&unpack[..], &[p(&packed), p(&back)]].concat()));
        let argmax = [
            "argmax",
            "--threads",
            threads,
            "--axis",
            "3",
            "--from",
            &from,
        ];
        let argmax = [&argmax[..], &["--to", "i64", p(&input), p(&idx)]].concat();
        assert_ok(&run(&argmax));
        seen.push([packed, back, idx].map(|f| fs::read(f).unwrap()));
    }
    assert!(seen.iter().all(|s| s == &seen[0]));
    let out = run(&[
        "pack",
        "--threads",
        "two",
        "--from",
        &from,
        "--to",
        &tiled,
        p(&input),
        p(&d.path("x.bin")),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--threads"));
    assert!(!d.path("x.bin").exists());
}
