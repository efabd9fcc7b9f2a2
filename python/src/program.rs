//! `eqscan.Program` (a parsed program, optimized or not), `eqscan.Param`
//! (the name and type of an input, output or shared variable), and the
//! functions that make programs: `load` and `parse`.

use crate::error::{err, guarded};
use crate::function::Function;
use crate::settings::{read_flags, Flags};
use eqscan::exec::MemoryBudget;
use eqscan::lang::parse::parse_program_bytes;
use eqscan::lang::print::type_text;
use eqscan::lang::{print_program, Type};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::path::PathBuf;
use std::time::Instant;

/// The name and type of an input, an output or a shared variable.
///
/// `dtype` is NumPy's name of the element type (`"float64"`, ...; a random
/// key is `"int64"`), `shape` a tuple whose items are sizes (`int`) or
/// symbolic sizes (`str`, bound when the program runs), `type` the type as
/// the program text writes it (`"(f64 T 2)"`).
#[pyclass(frozen, get_all, module = "eqscan")]
pub struct Param {
    /// The name (outputs are named `out_K`, as `eqscan run --out` names
    /// their files).
    pub name: String,
    /// NumPy's dtype name.
    pub dtype: String,
    /// The sizes: `int`, or `str` for a symbolic size.
    pub shape: Py<PyTuple>,
    /// The type as program text.
    #[pyo3(name = "type")]
    pub type_: String,
}

#[pymethods]
impl Param {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Param(name={:?}, dtype={:?}, shape={}, type={:?})",
            self.name,
            self.dtype,
            self.shape.bind(py).repr()?,
            self.type_
        ))
    }
}

/// The [`Param`] named `name` of type `ty`.
pub fn param(py: Python<'_>, name: &str, ty: &Type) -> PyResult<Param> {
    let mut sizes: Vec<Bound<'_, PyAny>> = Vec::with_capacity(ty.shape.len());
    for d in &ty.shape {
        sizes.push(match d.as_known() {
            Some(n) => n.into_pyobject(py)?.into_any(),
            None => d.to_string().into_pyobject(py)?.into_any(),
        });
    }
    Ok(Param {
        name: name.to_string(),
        dtype: ty.dtype.numpy_name().to_string(),
        shape: PyTuple::new(py, sizes)?.unbind(),
        type_: type_text(ty),
    })
}

/// A program: parsed from text (`eqscan.load`, `eqscan.parse`), or
/// optimized (`Program.optimize`). `str(program)` is its canonical text,
/// as `eqscan fmt` prints it; `compile()` makes a callable `Function`.
///
/// Subclasses and attributes are allowed (`eqscan.from_pytensor` attaches
/// how PyTensor's variables map to the program's); `optimize` carries the
/// attributes over to the optimized program.
#[pyclass(subclass, dict, module = "eqscan")]
pub struct Program {
    pub(crate) program: eqscan::lang::Program,
    /// The file errors are located in (`"<string>"` for `parse`'s default).
    pub(crate) filename: String,
    pub(crate) parse_ms: f64,
    /// The optimizer's `--json` report, for an optimized program.
    pub(crate) report: Option<String>,
}

impl Program {
    fn new(bytes: &[u8], filename: String) -> PyResult<Program> {
        let t0 = Instant::now();
        let program = guarded(|| parse_program_bytes(bytes).map_err(|e| e.located(&filename)))
            .map_err(err)?;
        Ok(Program {
            program,
            filename,
            parse_ms: t0.elapsed().as_secs_f64() * 1e3,
            report: None,
        })
    }

    /// Optimizes the program with `flags` (the GIL released), the
    /// optimized program with its report.
    fn optimized(&self, py: Python<'_>, flags: &Flags) -> PyResult<Program> {
        let file = self.filename.clone();
        let (program, report) = py
            .detach(|| {
                guarded(|| {
                    let report = flags
                        .settings
                        .optimize(&self.program, &flags.dims)
                        .map_err(|e| e.located(&file))?;
                    let json = report.to_json(self.parse_ms).to_string();
                    Ok((report.program, json))
                })
            })
            .map_err(err)?;
        Ok(Program {
            program,
            filename: self.filename.clone(),
            parse_ms: self.parse_ms,
            report: Some(report),
        })
    }

    /// Copies the attributes of `from` (its `__dict__`) onto `to`.
    fn carry_attributes(from: &Bound<'_, Program>, to: &Bound<'_, Program>) -> PyResult<()> {
        let src = from.getattr("__dict__")?;
        let dst = to.getattr("__dict__")?;
        dst.call_method1("update", (src,))?;
        Ok(())
    }
}

#[pymethods]
impl Program {
    /// The program's name (`(program NAME ...)`).
    #[getter]
    fn name(&self) -> String {
        self.program.name.clone()
    }

    /// The file the program's errors are located in.
    #[getter]
    fn filename(&self) -> String {
        self.filename.clone()
    }

    /// The inputs, in declaration order (the positional order of a call):
    /// a list of `Param`.
    #[getter]
    fn inputs(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        self.program
            .inputs()
            .map(|(n, t)| param(py, n, t))
            .collect()
    }

    /// The outputs, in order (`out_0`, `out_1`, ...): a list of `Param`.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        let g = &self.program.graph;
        g.outputs[..self.program.n_outputs()]
            .iter()
            .enumerate()
            .map(|(k, &o)| param(py, &format!("out_{k}"), g.node(o).ty()))
            .collect()
    }

    /// The shared variables (state kept between calls), in declaration
    /// order: a list of `Param`.
    #[getter]
    fn shared(&self, py: Python<'_>) -> PyResult<Vec<Param>> {
        self.program
            .shared_vars()
            .map(|(n, t)| param(py, n, t))
            .collect()
    }

    /// For an optimized program, the optimizer's report: the dict that
    /// `eqscan optimize --json` prints (`program`, `stop_reason`,
    /// `iterations`, `rules_applied`, `cost_before`, `cost_after`,
    /// `time_ms`, ...). `None` for a program that was not optimized.
    #[getter]
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.report {
            None => Ok(None),
            Some(text) => Ok(Some(
                py.import("json")?.call_method1("loads", (text.as_str(),))?,
            )),
        }
    }

    /// Optimizes the program: returns the optimized `Program`, whose
    /// `report` is the optimizer's report. The flags are `eqscan
    /// optimize`'s options: `rules` (a path or list of paths of rule files
    /// or folders; default: the shipped rules), `scan_rules` (default
    /// True; or `no_scan_rules=True`), `iter_limit`, `node_limit`,
    /// `plateau_iters` (0: never), `restarts` (0: never), `time_limit`
    /// (seconds), `extractor`
    /// (`"greedy"`, `"tree"` or `"ilp"`), `ilp_time_limit` (seconds),
    /// `memory_budget` (bytes, or a string such as `"512M"`), and `dims`
    /// (a dict: the size the cost model gives a symbolic size; 1000 when
    /// absent). A `grad` is expanded first. Raises `eqscan.Error` when
    /// the program cannot be optimized (e.g. a bad rule file).
    #[pyo3(signature = (**flags))]
    fn optimize<'py>(
        slf: &Bound<'py, Self>,
        flags: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, Program>> {
        let flags = read_flags(flags)?;
        let py = slf.py();
        let optimized = Bound::new(py, slf.borrow().optimized(py, &flags)?)?;
        Program::carry_attributes(slf, &optimized)?;
        Ok(optimized)
    }

    /// Compiles the program into a callable `Function`: optimized first
    /// (with the flags of `optimize`) unless `optimize=False`.
    /// `dims` also gives sizes that no input binds (such as a loop's
    /// `n_steps`); `max_memory` (bytes, or a string such as `"2G"`) is the
    /// most one array may take while the function runs (default: the
    /// machine's memory). The program as written is kept to locate the
    /// errors of a call.
    #[pyo3(signature = (optimize = true, max_memory = None, **flags))]
    fn compile(
        &self,
        py: Python<'_>,
        optimize: bool,
        max_memory: Option<&Bound<'_, PyAny>>,
        flags: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Function> {
        let flags = read_flags(flags)?;
        let budget = match max_memory {
            None => MemoryBudget::default(),
            Some(v) if v.is_none() => MemoryBudget::default(),
            Some(v) => MemoryBudget::bytes(match v.extract::<u64>() {
                Ok(n) => n,
                Err(_) => crate::settings::byte_count(&v.extract::<String>()?)
                    .map_err(pyo3::exceptions::PyValueError::new_err)?,
            }),
        };
        let file = self.filename.clone();
        let written = py
            .detach(|| {
                guarded(|| eqscan::session::expand(&self.program).map_err(|e| e.located(&file)))
            })
            .map_err(err)?;
        let run = if optimize {
            let opt = self.optimized(py, &flags)?;
            opt.program
        } else {
            written.clone()
        };
        Function::new(py, written, run, file, flags.dims, budget)
    }

    /// The canonical program text, as `eqscan fmt` prints it.
    fn __str__(&self) -> String {
        print_program(&self.program)
    }

    fn __repr__(&self) -> String {
        format!(
            "<eqscan.Program {} ({} inputs, {} outputs{}) from {}>",
            self.program.name,
            self.program.n_inputs(),
            self.program.n_outputs(),
            if self.report.is_some() {
                ", optimized"
            } else {
                ""
            },
            self.filename
        )
    }
}

/// Reads and parses the program in the file `path`. Raises `eqscan.Error`
/// (`FILE:LINE:COL: message`) when the file cannot be read or parsed.
#[pyfunction]
pub fn load(path: PathBuf) -> PyResult<Program> {
    let file = path.display().to_string();
    let bytes =
        std::fs::read(&path).map_err(|e| err(format!("{file}: cannot read the file: {e}")))?;
    Program::new(&bytes, file)
}

/// Parses program text; errors are located in `filename`
/// (`FILE:LINE:COL: message`). Raises `eqscan.Error`.
#[pyfunction]
#[pyo3(signature = (text, filename = "<string>"))]
pub fn parse(text: &str, filename: &str) -> PyResult<Program> {
    Program::new(text.as_bytes(), filename.to_string())
}
