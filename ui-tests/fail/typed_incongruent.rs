// A hand-written static layout type whose shape and stride trees differ: a type error
// (fires in `cargo check`).
use strideweave::{Static, C};
fn takes(_: Static<(C<2>, (C<3>, C<4>)), (C<1>, C<2>, C<6>)>) {}
fn main() {}
