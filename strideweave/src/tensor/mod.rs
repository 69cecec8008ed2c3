//! Tensor specs, placements, plans and kernels (see `spec/placements.md`).
