//! CPU kernels: Cast, CastTess (and its inverse) and Argmax.
//!
//! Every conversion goes through one routine, [`run::convert_row`]; large runs split
//! their output into disjoint byte ranges handled in parallel ([`parallel`]), so the
//! bytes written never depend on the thread count.

pub mod argmax;
pub(crate) mod cache;
pub mod cast;
pub mod cast_tess;
pub(crate) mod parallel;
pub(crate) mod run;
pub(crate) mod transpose;

pub(crate) use parallel::Exec;
