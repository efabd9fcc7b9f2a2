//! Reading and writing a nested list as a `.npz` archive (SPEC §1
//! "Nested lists"): `values` (the innermost tensors stacked along a new
//! axis 0) and `row_splits_0`, `row_splits_1`, ... (outermost first).
//!
//! Owns: [`read_list_npz`] and [`write_list_npz`] over `ndarray-npy`'s
//! npz support. The splits are int64 (int32 is accepted) and are checked
//! by [`ListValue::from_parts`]; the depth is the number of
//! `row_splits_K` members, which must run from 0 without a gap. Must not:
//! know which input a file is for (the caller checks the depth, dtype and
//! element shape against the program and names the input).

use super::value::ListValue;
use crate::exec::error::ExecError;
use crate::exec::value::{with_array, Value};
use ndarray::ArrayD;
use ndarray_npy::{NpzReader, NpzWriter, ReadNpzError};
use std::fs::File;
use std::path::Path;

fn npz_error(path: &Path, msg: impl Into<String>) -> ExecError {
    ExecError::Npy {
        path: path.display().to_string(),
        msg: msg.into(),
    }
}

/// The first line of an error's text.
fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}

/// Reads member `name` of any of the four dtypes.
fn read_member(z: &mut NpzReader<File>, name: &str) -> Result<Value, String> {
    fn read<T: ndarray_npy::ReadableElement>(
        z: &mut NpzReader<File>,
        name: &str,
    ) -> Result<ArrayD<T>, ReadNpzError> {
        z.by_name::<ndarray::OwnedRepr<T>, ndarray::IxDyn>(name)
    }
    let mut errors: Vec<String> = Vec::new();
    macro_rules! attempt {
        ($t:ty) => {
            match read::<$t>(z, name) {
                Ok(a) => return Ok(a.into()),
                Err(ReadNpzError::Npy(e)) => errors.push(one_line(&e)),
                Err(e) => return Err(one_line(&e)),
            }
        };
    }
    attempt!(f64);
    attempt!(f32);
    attempt!(i64);
    attempt!(i32);
    attempt!(bool);
    Err(format!(
        "{name} is not an array of f64, f32, i64, i32 or bool ({})",
        errors.last().map_or("", String::as_str)
    ))
}

/// Reads a list from a `.npz` file; malformed splits are an error naming
/// the file and the splits.
pub fn read_list_npz(path: &Path) -> Result<ListValue, ExecError> {
    let fail = |m: String| npz_error(path, m);
    let file = File::open(path).map_err(|e| fail(format!("cannot read the file: {e}")))?;
    let mut z = NpzReader::new(file)
        .map_err(|e| fail(format!("not a valid .npz file: {}", one_line(&e))))?;
    let names = z
        .names()
        .map_err(|e| fail(format!("not a valid .npz file: {}", one_line(&e))))?;
    if !names.iter().any(|n| n == "values") {
        return Err(fail(
            "a list archive needs a member 'values' (and row_splits_0, ...)".into(),
        ));
    }
    let depth = names
        .iter()
        .filter(|n| n.starts_with("row_splits_"))
        .count();
    let mut splits = Vec::with_capacity(depth);
    for k in 0..depth {
        let name = format!("row_splits_{k}");
        if !names.contains(&name) {
            return Err(fail(format!(
                "it has {depth} row_splits members but no {name} (they are numbered from 0)"
            )));
        }
        let s = match read_member(&mut z, &name).map_err(&fail)? {
            Value::I64(a) if a.ndim() == 1 => a.iter().copied().collect::<Vec<i64>>(),
            Value::I32(a) if a.ndim() == 1 => a.iter().map(|&x| x as i64).collect(),
            v => {
                return Err(fail(format!(
                    "{name} must be a 1-D int64 (or int32) array, got {} of shape {:?}",
                    v.dtype().numpy_name(),
                    v.shape()
                )))
            }
        };
        splits.push(s);
    }
    if depth == 0 {
        return Err(fail(
            "a list archive needs row_splits_0 (and one more per depth)".into(),
        ));
    }
    let values = read_member(&mut z, "values").map_err(&fail)?;
    ListValue::from_parts(values, splits).map_err(|m| fail(format!("malformed list: {m}")))
}

/// Writes a list as a `.npz` file in the canonical layout.
pub fn write_list_npz(path: &Path, l: &ListValue) -> Result<(), ExecError> {
    let fail = |e: &dyn std::fmt::Display| npz_error(path, format!("cannot write the file: {e}"));
    let file = File::create(path).map_err(|e| fail(&e))?;
    let mut z = NpzWriter::new(file);
    let (values, splits) = l.to_parts();
    with_array!(&values, a => z.add_array("values", a)).map_err(|e| fail(&e))?;
    for (k, s) in splits.into_iter().enumerate() {
        let a = ndarray::Array1::from(s);
        z.add_array(format!("row_splits_{k}"), &a)
            .map_err(|e| fail(&e))?;
    }
    z.finish().map_err(|e| fail(&e))?;
    Ok(())
}
