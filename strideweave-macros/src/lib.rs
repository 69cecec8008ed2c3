//! Procedural macros of StrideWeave (the `layout!` family).
