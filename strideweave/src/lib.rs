//! StrideWeave: CuTe-style hierarchical layouts, their algebra, tensor placements and kernels.

pub mod tensor;
