//! Replays the committed tensor fuzz corpora (`fuzz/corpus/{tensor_spec,plan}/`) and a
//! deterministic pseudo-random sweep through both tensor fuzz-target bodies, so CI on
//! stable catches any regression the coverage-guided fuzzer found (issue 6: fuzzing).

use std::path::Path;
use strideweave_suite::fuzz_tensor;

type Target = fn(&[u8]);

fn targets() -> [(&'static str, Target); 2] {
    [
        ("tensor_spec", fuzz_tensor::tensor_spec),
        ("plan", fuzz_tensor::plan),
    ]
}

#[test]
fn every_committed_tensor_corpus_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (name, target) in targets() {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!("missing corpus directory {}", dir.display());
        };
        let mut replayed = 0;
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            target(&data);
            replayed += 1;
        }
        assert!(replayed > 0, "no {name} corpus input replayed");
    }
}

/// xorshift64*: a fixed, dependency-free byte source.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn sweep_cases(default: usize) -> usize {
    std::env::var("STRIDEWEAVE_FUZZ_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn plan_target_random_bytes_sweep() {
    let mut rng = Rng(0x7e45_0001_dead_beef);
    for _ in 0..sweep_cases(3000) {
        let len = (rng.next() % 64) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        fuzz_tensor::plan(&data);
    }
}

#[test]
fn tensor_spec_target_random_bytes_sweep() {
    let mut rng = Rng(0x7e45_0002_feed_f00d);
    for _ in 0..sweep_cases(3000) {
        let len = (rng.next() % 48) as usize;
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        fuzz_tensor::tensor_spec(&data);
    }
}

#[test]
fn tensor_spec_grammar_sweep() {
    // Random specs assembled from the grammar's own pieces reach deeper than random bytes.
    const DT: &[&str] = &["f32", "f16", "bf16", "i32", "i64", "u8"];
    const PL: &[&str] = &[
        "",
        " contiguous",
        " strided(",
        " mla-tiled(roles=",
        " mla-cblocked(tile=(",
    ];
    const BITS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "4",
        "8",
        "16",
        "-4",
        "64",
        ",",
        ",",
        ")",
        "(",
        ".",
        "H",
        "W",
        "C",
        "D",
        ", tile=(",
        ", align=",
        " ",
        "18446744073709551615",
        "4294967296",
    ];
    let mut rng = Rng(0x7e45_0003_0bad_cafe);
    for _ in 0..sweep_cases(3000) {
        let mut lines = Vec::new();
        for _ in 0..1 + rng.next() % 2 {
            let mut s = String::from(DT[(rng.next() % DT.len() as u64) as usize]);
            s.push('[');
            for k in 0..rng.next() % 5 {
                if k > 0 {
                    s.push(',');
                }
                s.push_str(&(rng.next() % 6).to_string());
            }
            s.push(']');
            s.push_str(PL[(rng.next() % PL.len() as u64) as usize]);
            for _ in 0..rng.next() % 12 {
                s.push_str(BITS[(rng.next() % BITS.len() as u64) as usize]);
            }
            lines.push(s);
        }
        fuzz_tensor::tensor_spec(lines.join("\n").as_bytes());
    }
}
