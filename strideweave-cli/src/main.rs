//! The `strideweave` command-line tool.
fn main() {}
