//! Op kernels.
