//! Coverage-guided fuzzing of `strideweave_suite::fuzz_tensor::plan`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| strideweave_suite::fuzz_tensor::plan(data));
