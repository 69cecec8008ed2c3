//! Test-and-bench host package.
