//! Tensor specs, placements, plans and kernels (see `spec/placements.md` and `docs/tensor.md`).
//!
//! A [`TensorSpec`] is logical [`Dims`], a scalar [`DType`] and a physical [`Placement`].
//! [`prepare`] admits an [`Op`] on specs and returns a [`Plan`] stating each port's
//! required bytes and alignment; [`Plan::run`] executes it on byte buffers.
//!
//! ```
//! use strideweave::tensor::{prepare, AlignedBytes, Op, TensorSpec};
//! let from: TensorSpec = "f32[2,16]".parse().unwrap();
//! let to: TensorSpec = "bf16[2,16] mla-tiled(roles=WC, tile=(1,1,2,16), align=64)".parse().unwrap();
//! let plan = prepare(Op::CastTess, &[from], &[to]).unwrap();
//! let bytes: Vec<u8> = (0..32).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let input = AlignedBytes::from_slice(&bytes);
//! let mut packed = AlignedBytes::filled(plan.outputs()[0].bytes as usize, 0xFF);
//! plan.run(&[input.as_slice()], &mut [packed.as_mut_slice()]).unwrap();
//! let back = prepare(Op::CastUntess, &[to], &["f32[2,16]".parse().unwrap()]).unwrap();
//! let mut out = AlignedBytes::zeroed(128);
//! back.run(&[packed.as_slice()], &mut [out.as_mut_slice()]).unwrap();
//! assert_eq!(out.as_slice(), &bytes[..]);
//! ```

mod binding;
pub mod convert;
mod dims;
mod dsl;
mod dtype;
mod error;
pub mod kernels;
mod placement;
mod plan;
mod spec;

pub use binding::{AlignedBytes, RawInput, RawOutput};
pub use dims::{Dims, MAX_RANK};
pub use dsl::*;
pub use dtype::DType;
pub use error::{AdmissionError, Rule, TensorError};
pub use kernels::cast_tess::{
    RuntimeTile, StaticTile, Tile1x1x1x16, Tile1x1x1x32, Tile1x2x2x16, Tile1x4x4x16, Tile1x4x4x32,
    Tile1x8x8x16, TileDims,
};
pub use placement::{MlaCBlocked, MlaTiled, Placement, Role, Roles, Strides, CBLOCK_LANES};
pub use plan::{prepare, Op, Plan, PortRequirement, RunOptions, TileDispatch, PARALLEL_MIN_BYTES};
pub use spec::TensorSpec;
