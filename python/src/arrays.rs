//! NumPy arrays to the core's values and back.
//!
//! Inputs: the core's [`Value`] owns its data (an `ndarray::ArrayD`), and
//! [`eqscan::exec::plan::Compiled::call`] takes inputs by reference and
//! never writes them. A C-contiguous, aligned NumPy array of the input's
//! dtype is therefore *lent*: an [`Input`] whose `ArrayD` points at NumPy's
//! buffer, taken apart without freeing it when the call is over. Anything
//! else (another layout, a misaligned or empty array, `bool`, which Rust
//! requires to be exactly 0 or 1) is copied into an owned value.
//!
//! Outputs: the core moves each result out of its storage
//! ([`eqscan::exec::plan::Compiled::call_values`]); the `ArrayD` becomes
//! the NumPy array's buffer without a copy
//! ([`PyArray::from_owned_array`]).
//!
//! Must not: write a caller's array, or let a lent buffer be freed or
//! grown by Rust.

use eqscan::exec::Value;
use eqscan::lang::DType;
use ndarray::{ArrayD, IxDyn};
use numpy::{
    Element, PyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn,
    PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use std::mem::ManuallyDrop;

/// An input value for one call: owned, or lending a NumPy array's buffer.
pub struct Input {
    value: ManuallyDrop<Value>,
    lent: bool,
}

impl Input {
    /// The value (valid while the NumPy array it may lend from is held).
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Whether the value lends a NumPy buffer (no copy was made).
    pub fn is_lent(&self) -> bool {
        self.lent
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // SAFETY: `value` is taken once, here, and never used again.
        let v = unsafe { ManuallyDrop::take(&mut self.value) };
        if self.lent {
            // The buffer is NumPy's: drop the array's shape, not its data.
            match v {
                Value::F64(a) => std::mem::forget(a.into_raw_vec_and_offset().0),
                Value::F32(a) => std::mem::forget(a.into_raw_vec_and_offset().0),
                Value::I64(a) => std::mem::forget(a.into_raw_vec_and_offset().0),
                Value::I32(a) => std::mem::forget(a.into_raw_vec_and_offset().0),
                Value::Bool(a) => std::mem::forget(a.into_raw_vec_and_offset().0),
            }
        }
    }
}

/// Keeps a lent NumPy array borrowed (read-only, as rust-numpy's borrow
/// flags track it) for as long as the call reads it.
#[allow(dead_code)] // held for its borrow, never read
pub enum Held<'py> {
    F64(PyReadonlyArrayDyn<'py, f64>),
    F32(PyReadonlyArrayDyn<'py, f32>),
    I64(PyReadonlyArrayDyn<'py, i64>),
    I32(PyReadonlyArrayDyn<'py, i32>),
}

/// An input (with the borrow that keeps its NumPy array lent, if it is),
/// or `None` when the array's dtype is not the one asked for.
pub type Converted<'py> = Option<(Input, Option<Held<'py>>)>;

/// The NumPy array for `obj`: itself if it is one, else
/// `numpy.asarray(obj, dtype)` (a Python number or a list).
pub fn as_array<'py>(
    obj: &Bound<'py, PyAny>,
    dtype: DType,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let np = obj.py().import("numpy")?;
    let a = np.call_method1("asarray", (obj, dtype.numpy_name()))?;
    Ok(a.cast_into::<PyUntypedArray>()?)
}

/// A description of an array: `float32 of shape (3, 2)`.
pub fn describe(a: &Bound<'_, PyUntypedArray>) -> String {
    let dims: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dtype = a
        .dtype()
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| "?".to_string());
    format!("{dtype} of shape {shape}")
}

/// Builds the input of dtype `dtype` from `a`: lent when its layout
/// allows, copied otherwise. `None` when `a`'s dtype is not `dtype`'s
/// (NumPy's: a key is `int64`).
pub fn input<'py>(a: &Bound<'py, PyUntypedArray>, dtype: DType) -> PyResult<Converted<'py>> {
    match dtype {
        DType::F64 => typed::<f64>(a, Value::F64, Held::F64),
        DType::F32 => typed::<f32>(a, Value::F32, Held::F32),
        DType::I64 | DType::Key => typed::<i64>(a, Value::I64, Held::I64),
        DType::I32 => typed::<i32>(a, Value::I32, Held::I32),
        DType::Bool => {
            if !a.dtype().is_equiv_to(&numpy::dtype::<bool>(a.py())) {
                return Ok(None);
            }
            let ro = a.cast::<PyArrayDyn<bool>>()?.try_readonly()?;
            let v = Value::Bool(ro.as_array().as_standard_layout().into_owned());
            Ok(Some((Input::owned(v), None)))
        }
    }
}

impl Input {
    fn owned(v: Value) -> Input {
        Input {
            value: ManuallyDrop::new(v),
            lent: false,
        }
    }
}

fn typed<'py, T: Element + Clone>(
    a: &Bound<'py, PyUntypedArray>,
    wrap: fn(ArrayD<T>) -> Value,
    hold: fn(PyReadonlyArrayDyn<'py, T>) -> Held<'py>,
) -> PyResult<Converted<'py>> {
    if !a.dtype().is_equiv_to(&numpy::dtype::<T>(a.py())) {
        return Ok(None);
    }
    let ro: PyReadonlyArrayDyn<'py, T> = a.cast::<PyArrayDyn<T>>()?.try_readonly()?;
    let len = a.len();
    if len > 0 && a.is_c_contiguous() && a.is_aligned() {
        let shape = IxDyn(a.shape());
        let ptr = ro.as_array().as_ptr() as *mut T;
        // SAFETY: NumPy's buffer holds `len` aligned, initialized `T`s in
        // C order, and stays alive and unmoved while `ro` (returned with
        // the input, held by the caller for the whole call) keeps the
        // array referenced and borrowed. The `Vec` built over it is never
        // dropped, grown or written: the value is only handed to the core
        // by shared reference (`Compiled::call` reads its inputs and never
        // writes them), and `Input::drop` takes the array apart with
        // `mem::forget` on its buffer. (`Vec::from_raw_parts` asks for
        // memory of Rust's allocator; that only matters to freeing or
        // growing it, which never happens here.)
        let data = unsafe { Vec::from_raw_parts(ptr, len, len) };
        // SAFETY: `len` is the product of the shape (rust-numpy computes
        // it so), and the data is in C order. (The checked constructor is
        // not used: on an error it would drop, and free, the vector.)
        let arr = unsafe { ArrayD::from_shape_vec_unchecked(shape, data) };
        Ok(Some((
            Input {
                value: ManuallyDrop::new(wrap(arr)),
                lent: true,
            },
            Some(hold(ro)),
        )))
    } else {
        let v = wrap(ro.as_array().as_standard_layout().into_owned());
        Ok(Some((Input::owned(v), None)))
    }
}

/// Moves `v` into a NumPy array without copying its data.
pub fn to_numpy(py: Python<'_>, v: Value) -> Bound<'_, PyAny> {
    match v {
        Value::F64(a) => PyArray::from_owned_array(py, a).into_any(),
        Value::F32(a) => PyArray::from_owned_array(py, a).into_any(),
        Value::I64(a) => PyArray::from_owned_array(py, a).into_any(),
        Value::I32(a) => PyArray::from_owned_array(py, a).into_any(),
        Value::Bool(a) => PyArray::from_owned_array(py, a).into_any(),
    }
}
