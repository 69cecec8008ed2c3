//! The `strideweave` Python package's native module: the spec's Python API (`Shape`,
//! `Stride`, `Layout`, `Tree`, `Node`) and tensor plans, every operation running in the
//! Rust core. The pure-Python part (`python/strideweave/`) re-exports these and adds the
//! NumPy helpers `pack` and `unpack`.

mod buffer;
mod composed;
mod convert;
mod dsl;
mod errors;
mod eval;
mod int_tree;
mod layout;
mod tensor;
mod tree;

use pyo3::prelude::*;

#[pymodule]
fn _strideweave(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<int_tree::PyShape>()?;
    m.add_class::<int_tree::PyStride>()?;
    m.add_class::<layout::PyLayout>()?;
    m.add_class::<composed::PySwizzle>()?;
    m.add_class::<composed::PyComposedLayout>()?;
    m.add_class::<composed::PyBasis>()?;
    m.add_class::<composed::PyCoordLayout>()?;
    m.add_class::<tree::PyNode>()?;
    m.add_class::<tree::PyNodeId>()?;
    m.add_class::<tree::PyTree>()?;
    m.add_class::<tensor::PyTensorSpec>()?;
    m.add_class::<tensor::PyOp>()?;
    m.add_class::<tensor::PyPortRequirement>()?;
    m.add_class::<tensor::PyPlan>()?;
    m.add_class::<dsl::PyTensor>()?;
    m.add_class::<dsl::PyIdentityTensor>()?;
    m.add_class::<dsl::PyCopyPlan>()?;
    m.add_function(wrap_pyfunction!(dsl::make_identity_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::zipped_divide, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::tiled_divide, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::local_tile, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::local_partition, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::copy, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::copy_if, m)?)?;
    m.add_function(wrap_pyfunction!(dsl::fill, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::prepare, m)?)?;
    m.add_function(wrap_pyfunction!(eval::eval, m)?)?;
    m.add("TensorError", m.py().get_type::<errors::TensorError>())?;
    m.add("MAX_LEAVES", strideweave::MAX_LEAVES)?;
    m.add("MAX_NODES", strideweave::MAX_NODES)?;
    Ok(())
}
