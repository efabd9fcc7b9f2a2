//! `eqscan._eqscan`: the Rust extension module of the Python package.
//!
//! Thin: it converts between Python (NumPy arrays, keyword flags) and the
//! core crate, and turns the core's errors into `eqscan.Error` with the
//! located one-line message the command line prints. The core does the
//! work: parsing, optimizing, compiling and running.
//!
//! Owns: the module's classes ([`program::Program`],
//! [`function::Function`]), its functions (`load`, `parse`) and its
//! exception (`Error`). Must not: reimplement anything the core does, or
//! let a Rust panic reach Python as anything but `eqscan.Error`.

mod arrays;
mod error;
mod function;
mod program;
mod settings;

use pyo3::prelude::*;

/// The Rust code's allocator (Python's and NumPy's memory is theirs):
/// mimalloc, as in the command line.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The module `eqscan._eqscan` (re-exported by `eqscan`).
#[pymodule]
fn _eqscan(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<error::Error>())?;
    m.add_class::<program::Program>()?;
    m.add_class::<function::Function>()?;
    m.add_class::<program::Param>()?;
    m.add_function(wrap_pyfunction!(program::load, m)?)?;
    m.add_function(wrap_pyfunction!(program::parse, m)?)?;
    Ok(())
}
