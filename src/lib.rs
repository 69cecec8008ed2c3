//! Test-and-bench host package: cross-crate tests, UI tests and benchmarks live beside it.
//! Its library holds the fuzz-target bodies, shared by the `fuzz/` crate (coverage-guided
//! fuzzing on nightly) and by `tests/fuzz_replay.rs` (corpus replay on stable CI).

pub mod fuzz_targets;
pub mod fuzz_tensor;
