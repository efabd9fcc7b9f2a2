//! Reading and writing `.npy` files (through `ndarray-npy`).
//!
//! Owns: turning a file into a [`Value`] of one of the four dtypes, with one
//! clear sentence for anything else. Must not: check shapes against a
//! program (the runner does).

use super::{ExecError, Value};
use ndarray::ArrayD;
use ndarray_npy::{ReadNpyError, ReadNpyExt, WriteNpyExt};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek};
use std::path::Path;

fn npy_err(path: &Path, msg: impl Into<String>) -> ExecError {
    ExecError::Npy {
        path: path.display().to_string(),
        msg: msg.into(),
    }
}

fn try_read<T: ndarray_npy::ReadableElement, R: Read + Seek>(
    r: &mut R,
) -> Result<ArrayD<T>, ReadNpyError> {
    r.rewind().map_err(ReadNpyError::Io)?;
    ArrayD::<T>::read_npy(&mut *r)
}

/// Checks, before anything is allocated, that the data the header
/// promises is in the file: a header claiming a huge shape must not make
/// the reader allocate it.
fn check_claimed_size(path: &Path, bytes: &[u8], file_len: u64) -> Result<(), ExecError> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(npy_err(path, "is not a .npy file (no NUMPY magic number)"));
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(npy_err(path, "is a .npy file of an unknown format version")),
    };
    let Some(header) = bytes.get(start..start + hlen) else {
        return Err(npy_err(path, "is not a .npy file (truncated header)"));
    };
    let header = String::from_utf8_lossy(header);
    let item = ["f8", "i8", "f4", "b1"]
        .iter()
        .zip([8u64, 8, 4, 1])
        .find(|(d, _)| {
            header.contains(&format!("'descr': '<{d}'"))
                || header.contains(&format!("'descr': '|{d}'"))
        })
        .map(|(_, n)| n);
    let shape = header
        .split_once("'shape':")
        .and_then(|(_, rest)| rest.split_once('('))
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(dims, _)| dims.to_string());
    if let (Some(item), Some(dims)) = (item, shape) {
        let mut n: u64 = item;
        for d in dims.split(',').map(str::trim).filter(|d| !d.is_empty()) {
            let d: u64 = d
                .parse()
                .map_err(|_| npy_err(path, "is not a .npy file (bad shape in the header)"))?;
            n = n.saturating_mul(d);
        }
        let data = file_len.saturating_sub((start + hlen) as u64);
        if n > data {
            return Err(npy_err(
                path,
                format!(
                    "is truncated: its header promises {n} bytes of data, the file holds {data}"
                ),
            ));
        }
    }
    Ok(())
}

/// Reads a `.npy` file of `f64`, `f32`, `i64` or `bool` elements.
pub fn read_npy(path: &Path) -> Result<Value, ExecError> {
    let mut file =
        File::open(path).map_err(|e| npy_err(path, format!("cannot open the file: {e}")))?;
    let file_len = file
        .metadata()
        .map_err(|e| npy_err(path, format!("cannot read the file: {e}")))?
        .len();
    let mut head = vec![0u8; (1usize << 17).min(file_len as usize)];
    file.read_exact(&mut head)
        .map_err(|e| npy_err(path, format!("cannot read the file: {e}")))?;
    check_claimed_size(path, &head, file_len)?;
    let mut r = BufReader::new(file);
    let first = match try_read::<f64, _>(&mut r) {
        Ok(a) => return Ok(Value::F64(a)),
        Err(e) => e,
    };
    // Only a wrong element type is worth trying the next dtype for.
    if !matches!(first, ReadNpyError::WrongDescriptor(_)) {
        return Err(npy_err(path, describe(&first)));
    }
    if let Ok(a) = try_read::<f32, _>(&mut r) {
        return Ok(Value::F32(a));
    }
    if let Ok(a) = try_read::<i64, _>(&mut r) {
        return Ok(Value::I64(a));
    }
    if let Ok(a) = try_read::<bool, _>(&mut r) {
        return Ok(Value::Bool(a));
    }
    Err(npy_err(
        path,
        "holds an element type eqscan does not read (it reads float64, float32, int64 and bool)",
    ))
}

fn describe(e: &ReadNpyError) -> String {
    match e {
        ReadNpyError::Io(e) => format!("cannot read the file: {e}"),
        ReadNpyError::ParseHeader(_) => "is not a .npy file (bad header)".to_string(),
        ReadNpyError::LengthOverflow => "claims a shape too large to hold".to_string(),
        ReadNpyError::MissingData => {
            "is truncated: it holds fewer elements than its shape says".to_string()
        }
        ReadNpyError::ExtraBytes(n) => format!("has {n} bytes after the data its shape describes"),
        other => format!("is not a readable .npy file: {other}"),
    }
}

/// Writes a value as a `.npy` file.
pub fn write_npy(path: &Path, v: &Value) -> Result<(), ExecError> {
    let file =
        File::create(path).map_err(|e| npy_err(path, format!("cannot create the file: {e}")))?;
    let w = BufWriter::new(file);
    let r = match v {
        Value::F64(a) => a.write_npy(w),
        Value::F32(a) => a.write_npy(w),
        Value::I64(a) => a.write_npy(w),
        Value::Bool(a) => a.write_npy(w),
    };
    r.map_err(|e| npy_err(path, format!("cannot write: {e}")))
}
