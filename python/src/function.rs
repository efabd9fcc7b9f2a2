//! `eqscan.Function`: a compiled program, called on NumPy arrays.
//!
//! A call binds the arguments to the inputs (by position, then by
//! keyword), checks each one's dtype and rank here and its sizes in the
//! core (symbolic sizes are bound from the shapes), lends or copies the
//! arrays ([`crate::arrays`]), releases the GIL, runs
//! [`Compiled::call_values`] (one plan kept across calls, with its
//! storage and the shared variables' values) and moves the results into
//! NumPy arrays.

use crate::arrays::{as_array, describe, input, to_numpy, Held, Input};
use crate::error::{err, guarded};
use crate::program::{param, Param};
use eqscan::exec::plan::Compiled;
use eqscan::exec::run::{bind_input_refs, Dims};
use eqscan::exec::shape_check::check_program;
use eqscan::exec::{ExecError, MemoryBudget, Value};
use eqscan::lang::print::type_text;
use eqscan::lang::{Program, Span, Type};
use numpy::PyUntypedArrayMethods;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::{Mutex, MutexGuard};

/// A program compiled for calls from Python: `f(*arrays, **arrays)`
/// returns a tuple of NumPy arrays, one per output.
///
/// Arguments are the program's inputs, by position (in declaration order)
/// or by name; a value that is not a NumPy array is converted with
/// `numpy.asarray(value, dtype)`. An array must have the input's dtype
/// exactly (no silent casts) and rank; its shape binds the symbolic
/// sizes, which must agree across inputs. A C-contiguous, aligned array
/// is read in place, without a copy (it must not be written by another
/// thread during the call); others are copied first. The results are new
/// arrays the caller owns. The GIL is released while the program runs.
///
/// Shared variables keep their values between calls (zeros of the bound
/// sizes at the first call unless set): `get_shared(name)`,
/// `set_shared(name, array)`.
#[pyclass(module = "eqscan")]
pub struct Function {
    compiled: Mutex<Compiled>,
    /// The program as written (grads expanded): to locate a call's errors.
    written: Program,
    /// Whether the compiled program is an optimized one.
    optimized: bool,
    filename: String,
    given: Dims,
    inputs: Vec<(String, Type, Span)>,
    /// The inputs copied (not lent) at the last call.
    copied: Mutex<Vec<String>>,
}

/// The sentence for input `name` declared at `span`.
fn input_error(file: &str, span: Span, name: &str, msg: String) -> PyErr {
    err(ExecError::Input {
        span,
        name: name.to_string(),
        msg,
    }
    .located(file))
}

impl Function {
    /// Compiles `run` (the program to execute; `written` is the program as
    /// written, the same or the one it was optimized from).
    pub fn new(
        py: Python<'_>,
        written: Program,
        run: Program,
        filename: String,
        given: Dims,
        budget: MemoryBudget,
    ) -> PyResult<Function> {
        let optimized = written != run;
        let compiled = py
            .detach(|| {
                guarded(|| {
                    let mut c = Compiled::new(&run, &given).map_err(|e| e.located(&filename))?;
                    c.set_memory_budget(budget);
                    Ok(c)
                })
            })
            .map_err(err)?;
        let inputs = written
            .graph
            .params()
            .take(written.n_inputs())
            .map(|(id, n)| {
                (
                    n.name.clone().unwrap_or_default(),
                    n.ty().clone(),
                    written.graph.span(id),
                )
            })
            .collect();
        Ok(Function {
            compiled: Mutex::new(compiled),
            written,
            optimized,
            filename,
            given,
            inputs,
            copied: Mutex::new(Vec::new()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Compiled> {
        // A panic during a call (turned into an error) poisons the lock;
        // the next call rebinds and recomputes everything it reads.
        self.compiled.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The arguments in input order.
    fn arrange<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let n = self.inputs.len();
        let names = || {
            self.inputs
                .iter()
                .map(|(n, ..)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if args.len() > n {
            return Err(PyTypeError::new_err(format!(
                "{} takes {n} inputs ({}), {} were given",
                self.written.name,
                names(),
                args.len()
            )));
        }
        let mut slots: Vec<Option<Bound<'py, PyAny>>> = args.iter().map(Some).collect();
        slots.resize(n, None);
        if let Some(kwargs) = kwargs {
            for (key, value) in kwargs.iter() {
                let key: String = key.extract()?;
                let Some(k) = self.inputs.iter().position(|(n, ..)| *n == key) else {
                    return Err(PyTypeError::new_err(format!(
                        "{} has no input named '{key}' (inputs: {})",
                        self.written.name,
                        names()
                    )));
                };
                if slots[k].is_some() {
                    return Err(PyTypeError::new_err(format!(
                        "input '{key}' is given twice (by position and by name)"
                    )));
                }
                slots[k] = Some(value);
            }
        }
        slots
            .into_iter()
            .zip(&self.inputs)
            .map(|(s, (name, ..))| {
                s.ok_or_else(|| PyTypeError::new_err(format!("input '{name}' is not given")))
            })
            .collect()
    }

    /// The located sentence for the error `e` of a call on `inputs`: the
    /// written program's own error when it has one for these inputs (the
    /// optimized program's places are not the file's), else `e`'s.
    fn locate(&self, e: &ExecError, inputs: &[&Value], compiled: &Compiled) -> String {
        if self.optimized {
            let mut all: Vec<Option<&Value>> = inputs.iter().map(|v| Some(*v)).collect();
            all.extend(self.written.shared_vars().map(|(n, _)| compiled.shared(n)));
            let mine = bind_input_refs(&self.written, &all, &self.given)
                .and_then(|dims| check_program(&self.written, &dims));
            if let Err(w) = mine {
                return w.located(&self.filename);
            }
        }
        e.located(&self.filename)
    }

    /// The value for shared variable `name` from `value` (always a copy:
    /// the function writes its shared variables in place).
    fn shared_value(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<Value> {
        let Some((id, node)) = self
            .written
            .graph
            .params()
            .skip(self.written.n_inputs())
            .find(|(_, n)| n.name.as_deref() == Some(name))
        else {
            return Err(self.no_shared(name));
        };
        let ty = node.ty();
        let span = self.written.graph.span(id);
        let a = as_array(value, ty.dtype)?;
        let expected = || format!("expected {}, got {}", type_text(ty), describe(&a));
        if a.ndim() != ty.ndim() {
            return Err(input_error(&self.filename, span, name, expected()));
        }
        match input(&a, ty.dtype)? {
            Some((v, _held)) => Ok(v.value().clone()),
            None => Err(input_error(&self.filename, span, name, expected())),
        }
    }

    fn no_shared(&self, name: &str) -> PyErr {
        let names: Vec<&str> = self.written.shared_vars().map(|(n, _)| n).collect();
        err(format!(
            "{}: the program has no shared variable named '{name}' (shared: {})",
            self.filename,
            names.join(", ")
        ))
    }
}

#[pymethods]
impl Function {
    /// Runs the program: arrays by position (input order) or by name;
    /// returns a tuple of NumPy arrays, one per output. Raises
    /// `eqscan.Error` (naming the input, or the op and its place in the
    /// file) on a wrong dtype, rank or size, or when the program fails;
    /// `TypeError` on a missing, unknown or repeated input.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let objs = self.arrange(args, kwargs)?;
        let mut held: Vec<Held<'py>> = Vec::new();
        let mut values: Vec<Input> = Vec::with_capacity(objs.len());
        let mut copied = Vec::new();
        for (obj, (name, ty, span)) in objs.iter().zip(&self.inputs) {
            let a = as_array(obj, ty.dtype)
                .map_err(|e| input_error(&self.filename, *span, name, e.to_string()))?;
            let expected = || format!("expected {}, got {}", type_text(ty), describe(&a));
            if a.ndim() != ty.ndim() {
                return Err(input_error(&self.filename, *span, name, expected()));
            }
            match input(&a, ty.dtype)? {
                Some((v, h)) => {
                    if !v.is_lent() {
                        copied.push(name.clone());
                    }
                    values.push(v);
                    held.extend(h);
                }
                None => return Err(input_error(&self.filename, *span, name, expected())),
            }
        }
        *self.copied.lock().unwrap_or_else(|e| e.into_inner()) = copied;
        let refs: Vec<&Value> = values.iter().map(Input::value).collect();
        let outs = py
            .detach(|| {
                let mut compiled = self.lock();
                guarded(|| match compiled.call_values(&refs) {
                    Ok(outs) => Ok(outs),
                    Err(e) => Err(self.locate(&e, &refs, &compiled)),
                })
            })
            .map_err(err)?;
        drop(refs);
        drop(values);
        drop(held);
        PyTuple::new(py, outs.into_iter().map(|v| to_numpy(py, v)))
    }

    /// The current value of shared variable `name` (a copy), or `None`
    /// before the first call when it was not set (it is then zeros of the
    /// sizes the first call binds).
    fn get_shared<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !self.written.shared_vars().any(|(n, _)| n == name) {
            return Err(self.no_shared(name));
        }
        let compiled = self.lock();
        Ok(compiled.shared(name).map(|v| to_numpy(py, v.clone())))
    }

    /// Sets shared variable `name` to (a copy of) `value`, for the next
    /// call. Its dtype and rank must be the variable's; its sizes are
    /// checked with the inputs' at the next call.
    fn set_shared(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = self.shared_value(name, value)?;
        let mut compiled = self.lock();
        compiled
            .set_shared(name, v)
            .map_err(|e| err(e.located(&self.filename)))
    }

    /// The inputs, in positional order: a list of `Param`.
    #[getter]
    fn inputs(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        self.inputs
            .iter()
            .map(|(n, t, _)| param(py, n, t))
            .collect()
    }

    /// The outputs, in order: a list of `Param`.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        let g = &self.written.graph;
        g.outputs[..self.written.n_outputs()]
            .iter()
            .enumerate()
            .map(|(k, &o)| param(py, &format!("out_{k}"), g.node(o).ty()))
            .collect()
    }

    /// The shared variables: a list of `Param`.
    #[getter(shared)]
    fn shared_params(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        self.written
            .shared_vars()
            .map(|(n, t)| param(py, n, t))
            .collect()
    }

    /// The names of the inputs the last call copied rather than read in
    /// place (another dtype layout than C-contiguous and aligned, `bool`,
    /// empty, or not a NumPy array).
    #[getter]
    fn input_copies(&self) -> Vec<String> {
        self.copied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<eqscan.Function {} ({}) from {}>",
            self.written.name,
            if self.optimized {
                "optimized"
            } else {
                "as written"
            },
            self.filename
        )
    }
}
