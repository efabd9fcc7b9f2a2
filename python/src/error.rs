//! `eqscan.Error`, and running core code so that neither its errors nor
//! its panics escape as anything else.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;
use std::panic::{catch_unwind, AssertUnwindSafe};

create_exception!(
    eqscan,
    Error,
    PyException,
    "An error of an eqscan program: its message is the one line the command \
line prints, naming FILE:LINE:COL where the program has a place for it \
(a syntax error, an unknown op, an input of the wrong dtype or shape, a \
failing op...)."
);

/// An `eqscan.Error` with this message.
pub fn err(msg: impl Into<String>) -> PyErr {
    Error::new_err(msg.into())
}

/// Runs `f`, turning a panic into an error (an internal error of eqscan:
/// Python must never see the process abort, nor a `PanicException`).
pub fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string());
            Err(format!(
                "internal error of eqscan (please report it): {what}"
            ))
        }
    }
}
