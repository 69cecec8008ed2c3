//! Compile-time behaviour of static layouts and the `layout!` macros (issue 3, item 4;
//! issue 9, item 5): every compile error is a trybuild case in `ui-tests/fail/` with a
//! reviewed `.stderr` (`macro_algebra_*`: one per algebra rule written inside `layout!`;
//! `static_*`: build errors of the static algebra naming the layouts), every valid form a
//! case in `ui-tests/pass/` (`macro_algebra_forms`: every algebra operation in the macro
//! form, equal to the runtime result).
//!
//! Compiler messages change between releases, so the cases only run on the toolchain
//! pinned by `rust-toolchain.toml`; on any other `rustc` this test prints a skip notice.

use std::process::Command;

fn pinned_toolchain() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rust-toolchain.toml"))
        .expect("rust-toolchain.toml is readable");
    text.lines()
        .find_map(|l| {
            let l = l.trim();
            let v = l.strip_prefix("channel")?.trim().strip_prefix('=')?.trim();
            Some(v.trim_matches('"').to_string())
        })
        .expect("rust-toolchain.toml names a channel")
}

fn rustc_version() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(rustc)
        .arg("--version")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn ui_compile_errors_and_valid_forms() {
    let pinned = pinned_toolchain();
    let version = rustc_version();
    if !version.starts_with(&format!("rustc {pinned} ")) {
        eprintln!(
            "skipping trybuild UI tests: they are pinned to rustc {pinned} (rust-toolchain.toml), found `{version}`"
        );
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/pass/*.rs");
    t.compile_fail("ui-tests/fail/*.rs");
}
