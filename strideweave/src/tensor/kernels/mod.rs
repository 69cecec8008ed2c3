//! CPU kernels: Cast, CastTess (and its inverse) and Argmax.

pub mod argmax;
pub mod cast;
pub mod cast_tess;
