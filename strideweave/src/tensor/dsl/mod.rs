//! The tensor DSL: a [`Tensor`] is an engine (where the elements live) plus a layout
//! (how coordinates reach them), as in CuTe. Tensors are sliced, tiled and partitioned
//! with the layout algebra, and copied with whole contiguous runs where the layouts
//! allow. See `docs/tensors.md` for a walk from a layout to a tiled kernel.

/// `?` for `const fn`s: the error of a `Result`, or its value. Local (in scope in the
/// modules below), so the tensor DSL depends only on the core's public API.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

mod addressing;
mod base;
mod convert;
mod copy;
mod engine;
mod fragment;
mod slicing;
mod tile;
mod walk;

pub use addressing::TensorLayout;
pub use base::{Tensor, View, ViewMut};
pub use convert::{convert, Bf16Planes, ConvertPlan, FloatEngine, FloatEngineMut};
pub use copy::{copy, copy_if, fill, transform, transform_if, CopyPlan};
pub use engine::{Engine, EngineMut};
pub use fragment::Fragment;
pub use slicing::{All, SliceSpec, Sliced};
pub use tile::{
    local_partition, local_partition_mut, local_tile, local_tile_mut, tiled_divide, zipped_divide,
    IdentityTensor, IdentityTiles, TileList, Tiler, Tiles, TilesMut, MAX_TILED_MODES,
};
pub use walk::{TileAt, TileIter, TileRuns, TileWalk, BLOCK_MODES, MAX_WALKED};

/// `docs/tensors.md`, its examples compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../../docs/tensors.md")]
struct TensorsGuide;
