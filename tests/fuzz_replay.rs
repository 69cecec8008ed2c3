//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) and a deterministic
//! pseudo-random sweep through every fuzz-target body, so CI on stable catches any
//! regression the coverage-guided fuzzer found (hardening: fuzzing).

use std::path::Path;
use strideweave_suite::fuzz_targets;

type Target = fn(&[u8]);

fn targets() -> [(&'static str, Target); 4] {
    [
        ("notation", fuzz_targets::notation),
        ("eval", fuzz_targets::eval),
        ("algebra", fuzz_targets::algebra),
        ("extremes", fuzz_targets::extremes),
    ]
}

#[test]
fn every_committed_corpus_input_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut replayed = 0;
    for (name, target) in targets() {
        let dir = root.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            panic!("missing corpus directory {}", dir.display());
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            target(&data);
            replayed += 1;
        }
    }
    assert!(replayed > 0, "no corpus input replayed");
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

#[test]
fn random_bytes_sweep_every_target() {
    let cases: usize = std::env::var("STRIDEWEAVE_FUZZ_SWEEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for (_, target) in targets() {
        for _ in 0..cases {
            let len = (rng.next() % 48) as usize;
            let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            target(&data);
        }
    }
}

#[test]
fn notation_alphabet_sweep() {
    // random strings over the notation's own alphabet reach deeper than random bytes
    const ALPHABET: &[u8] = b"0123456789(),:[] -abcdefghijklmnopqrstuvwxyz_";
    let mut rng = Rng(0x0dd_ba11);
    for _ in 0..5000 {
        let len = (rng.next() % 40) as usize;
        let s: Vec<u8> = (0..len)
            .map(|_| ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize])
            .collect();
        fuzz_targets::notation(&s);
        fuzz_targets::eval(&s);
    }
}
