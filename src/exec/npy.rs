//! Reading and writing `.npy` files.
//!
//! Owns: [`read_npy`] and [`write_npy`] over `ndarray-npy`. Only the four
//! dtypes are read (either byte order, C or Fortran order); the header is
//! checked against the file's size and the memory budget before the data
//! is read, so a file that claims an absurd shape is an error, not an
//! allocation failure. The header parser's diagnostics are folded into one
//! clause.
//! Must not: know which input a file is for (the caller checks dtype and
//! shape against the program).

use crate::exec::budget::{array_bytes, Allocation, MemoryBudget};
use crate::exec::error::ExecError;
use crate::exec::value::{shape_str, with_array, Value};
use crate::lang::DType;
use ndarray::ArrayD;
use ndarray_npy::npy::header::{Header, ReadHeaderError};
use ndarray_npy::{ReadNpyError, ReadNpyExt, WriteNpyExt};
use std::io::{BufWriter, Read, Write};
use std::path::Path;

fn npy_error(path: &Path, msg: impl Into<String>) -> ExecError {
    ExecError::Npy {
        path: path.display().to_string(),
        msg: msg.into(),
    }
}

/// The dtype of a `.npy` type descriptor such as `'<f8'`, or a sentence
/// saying why it is not supported.
fn descr_dtype(descr: &str) -> Result<DType, String> {
    let d = descr.trim_matches(|c| c == '\'' || c == '"');
    let code = d.trim_start_matches(['<', '>', '=', '|']);
    let order_ok = d.len() == code.len() + 1 || d.len() == code.len();
    let dt = match code {
        "f8" if order_ok => Some(DType::F64),
        "f4" if order_ok => Some(DType::F32),
        "i8" if order_ok => Some(DType::I64),
        "i4" if order_ok => Some(DType::I32),
        "b1" if order_ok => Some(DType::Bool),
        _ => None,
    };
    dt.ok_or_else(|| {
        let what = match code {
            "f2" | "e" => " (float16 is not supported)".to_string(),
            _ => format!(" (its dtype is {descr})"),
        };
        format!("not a .npy file of f64, f32, i64, i32 or bool{what}")
    })
}

fn read_as<T>(bytes: &[u8]) -> Result<ArrayD<T>, ReadNpyError>
where
    T: ndarray_npy::ReadableElement,
{
    ArrayD::<T>::read_npy(bytes)
}

/// Reads a `.npy` file holding `f64`, `f32`, `i64` or `bool` data.
pub fn read_npy(path: &Path) -> Result<Value, ExecError> {
    read_npy_within(path, &MemoryBudget::default())
}

/// The header's length as its fixed prefix says (magic string, version,
/// `HEADER_LEN`): the bytes before the data. `None` when the prefix is not
/// one of a `.npy` file (the header parser then words the error).
fn header_end(prefix: &[u8]) -> Option<u64> {
    if prefix.len() < 10 || &prefix[..6] != b"\x93NUMPY" {
        return None;
    }
    match prefix[6] {
        1 => Some(10 + u16::from_le_bytes([prefix[8], prefix[9]]) as u64),
        2 | 3 if prefix.len() >= 12 => {
            Some(12 + u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]) as u64)
        }
        _ => None,
    }
}

/// A header error of `ndarray-npy` as one clause (its own messages may
/// quote the header's text over several lines).
fn header_error(e: &ReadHeaderError) -> String {
    use ndarray_npy::npy::header::ParseHeaderError as P;
    match e {
        ReadHeaderError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            "it ends inside its header".to_string()
        }
        ReadHeaderError::Io(e) => format!("cannot read its header: {e}"),
        ReadHeaderError::Parse(p) => match p {
            P::MagicString => "it does not start with the .npy magic string".to_string(),
            P::Version { major, minor } => format!("unknown .npy format version {major}.{minor}"),
            P::HeaderLengthOverflow(n) => format!("its header length {n} is too large"),
            P::NonAscii => "its header is not ASCII".to_string(),
            P::Utf8Parse(_) => "its header is not UTF-8".to_string(),
            P::UnknownKey(k) => {
                format!("its header has an unknown key {}", one_line(&k.to_string()))
            }
            P::MissingKey(k) => format!("its header has no '{k}' key"),
            P::IllegalValue { key, value } => format!(
                "its header has an illegal value for '{key}': {}",
                one_line(&value.to_string())
            ),
            P::DictParse(_) => "its header is not a Python dictionary literal".to_string(),
            P::MetaNotDict(_) => "its header is not a dictionary".to_string(),
            P::MissingNewline => "its header does not end with a newline".to_string(),
        },
    }
}

/// The first line of `s`, cut to 60 characters.
fn one_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let mut out: String = line.chars().take(60).collect();
    if out.len() < s.trim_end().len() {
        out.push_str("...");
    }
    out
}

/// [`read_npy`] with a memory budget. The header is read and checked
/// against the file's length and the budget before the data is read, so a
/// file that claims an absurd shape is an error, not an allocation failure.
pub fn read_npy_within(path: &Path, budget: &MemoryBudget) -> Result<Value, ExecError> {
    let cannot = |e: std::io::Error| npy_error(path, format!("cannot read the file: {e}"));
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let file_len = file.metadata().map_err(cannot)?.len();
    let mut prefix = Vec::with_capacity(12);
    (&mut file)
        .take(12)
        .read_to_end(&mut prefix)
        .map_err(cannot)?;
    let invalid = |m: String| npy_error(path, format!("not a valid .npy file: {m}"));
    // The header, read whole once its claimed length fits in the file.
    let end = match header_end(&prefix) {
        Some(end) if end > file_len => return Err(invalid("it ends inside its header".into())),
        Some(end) => end,
        None => prefix.len() as u64,
    };
    let mut head = prefix;
    (&mut file)
        .take(end - head.len() as u64)
        .read_to_end(&mut head)
        .map_err(cannot)?;
    let header =
        Header::from_reader(&mut head.as_slice()).map_err(|e| invalid(header_error(&e)))?;
    let dtype = descr_dtype(&header.type_descriptor.to_string()).map_err(|m| npy_error(path, m))?;
    let Some(want) = array_bytes(dtype, &header.shape).filter(|&b| b <= isize::MAX as u128) else {
        return Err(npy_error(
            path,
            format!(
                "the header claims an impossibly large shape {}",
                shape_str(&header.shape)
            ),
        ));
    };
    let held = (file_len - end) as u128;
    if want != held {
        return Err(npy_error(
            path,
            format!(
                "the header claims {} data of shape {} ({want} bytes) but the file holds {held} bytes of data",
                dtype,
                shape_str(&header.shape),
            ),
        ));
    }
    budget
        .check(Allocation::Data, dtype, &header.shape)
        .map_err(|over| npy_error(path, format!("reading it {over}")))?;
    let mut bytes = head;
    file.read_to_end(&mut bytes).map_err(cannot)?;
    let v = match dtype {
        DType::F64 => read_as::<f64>(&bytes).map(Value::F64),
        DType::F32 => read_as::<f32>(&bytes).map(Value::F32),
        DType::I64 | DType::Key => read_as::<i64>(&bytes).map(Value::I64),
        DType::I32 => read_as::<i32>(&bytes).map(Value::I32),
        DType::Bool => read_as::<bool>(&bytes).map(Value::Bool),
    };
    v.map_err(|e| {
        npy_error(
            path,
            format!("cannot read the data: {}", one_line(&e.to_string())),
        )
    })
}

/// Writes a value as a `.npy` file (C order unless the value is stored in
/// Fortran order).
pub fn write_npy(path: &Path, v: &Value) -> Result<(), ExecError> {
    let fail = |e: &dyn std::fmt::Display| npy_error(path, format!("cannot write the file: {e}"));
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut w = BufWriter::new(file);
    with_array!(v, a => a.write_npy(&mut w)).map_err(|e| fail(&e))?;
    w.flush().map_err(|e| fail(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array;

    fn tmp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("eqscan-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn msg(e: ExecError) -> String {
        match e {
            ExecError::Npy { msg, .. } => msg,
            other => panic!("unexpected error {other:?}"),
        }
    }

    #[test]
    fn round_trips_every_dtype() {
        let vals = [
            Value::F64(
                Array::from_shape_vec((2, 3), vec![0.5, -1.0, f64::NAN, 3.0, 4.0, 5.0])
                    .unwrap()
                    .into_dyn(),
            ),
            Value::F32(Array::from_vec(vec![1.5f32, -2.0]).into_dyn()),
            Value::I64(Array::from_vec(vec![i64::MIN, 0, 7]).into_dyn()),
            Value::Bool(
                Array::from_shape_vec((1, 2), vec![true, false])
                    .unwrap()
                    .into_dyn(),
            ),
            Value::scalar_f64(2.0),
            Value::zeros(DType::F64, &[0, 4]),
        ];
        for (n, v) in vals.iter().enumerate() {
            let p = tmp(&format!("rt{n}.npy"));
            write_npy(&p, v).unwrap();
            let back = read_npy(&p).unwrap();
            assert_eq!(back.dtype(), v.dtype());
            assert_eq!(back.shape(), v.shape());
            assert!(back.allclose(v, 0.0, 0.0));
        }
        // a transposed (non-standard) value is written in logical order
        let t = crate::exec::ops::shape::transpose(
            &Value::I64(
                Array::from_shape_vec((2, 3, 4), (0..24).collect())
                    .unwrap()
                    .into_dyn(),
            ),
            Some(&[1, 0, 2]),
        )
        .unwrap();
        let p = tmp("t.npy");
        write_npy(&p, &t).unwrap();
        assert_eq!(read_npy(&p).unwrap(), t);
    }

    #[test]
    fn bad_files_are_errors() {
        let missing = tmp("does-not-exist.npy");
        assert!(msg(read_npy(&missing).unwrap_err()).starts_with("cannot read the file"));
        let garbled = tmp("garbled.npy");
        std::fs::write(&garbled, b"hello world, not numpy").unwrap();
        assert!(msg(read_npy(&garbled).unwrap_err()).starts_with("not a valid .npy file"));
        let empty = tmp("empty.npy");
        std::fs::write(&empty, b"").unwrap();
        assert!(read_npy(&empty).is_err());

        let with_header = |descr: &str, shape: &str, data: &[u8]| {
            let dict =
                format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
            let mut h = dict.into_bytes();
            while (10 + h.len() + 1) % 64 != 0 {
                h.push(b' ');
            }
            h.push(b'\n');
            let mut out = b"\x93NUMPY\x01\x00".to_vec();
            out.extend((h.len() as u16).to_le_bytes());
            out.extend(h);
            out.extend(data);
            out
        };
        let f16 = tmp("f16.npy");
        std::fs::write(&f16, with_header("<f2", "(2,)", &[0; 4])).unwrap();
        assert_eq!(
            msg(read_npy(&f16).unwrap_err()),
            "not a .npy file of f64, f32, i64, i32 or bool (float16 is not supported)"
        );
        let i16f = tmp("i16.npy");
        std::fs::write(&i16f, with_header("<i2", "(2,)", &[0; 4])).unwrap();
        assert_eq!(
            msg(read_npy(&i16f).unwrap_err()),
            "not a .npy file of f64, f32, i64, i32 or bool (its dtype is '<i2')"
        );
        // int32 is read as i32
        let i32f = tmp("i32.npy");
        let bytes: Vec<u8> = [-2147483648i32, 7]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        std::fs::write(&i32f, with_header("<i4", "(2,)", &bytes)).unwrap();
        assert_eq!(
            read_npy(&i32f).unwrap(),
            Value::I32(Array::from_vec(vec![i32::MIN, 7]).into_dyn())
        );
        let absurd = tmp("absurd.npy");
        std::fs::write(
            &absurd,
            with_header("<f8", "(1000000000000, 1000000000000)", &[0; 8]),
        )
        .unwrap();
        assert!(msg(read_npy(&absurd).unwrap_err()).contains("impossibly large"));
        let big = tmp("big.npy");
        std::fs::write(&big, with_header("<f8", "(100000000000,)", &[0; 8])).unwrap();
        assert!(msg(read_npy(&big).unwrap_err()).contains("but the file holds 8 bytes"));
        let bad_bool = tmp("badbool.npy");
        std::fs::write(&bad_bool, with_header("|b1", "(2,)", &[1, 7])).unwrap();
        assert!(msg(read_npy(&bad_bool).unwrap_err()).starts_with("cannot read the data"));
        let be = tmp("be.npy");
        std::fs::write(&be, with_header(">f8", "(1,)", &2.0f64.to_be_bytes())).unwrap();
        assert_eq!(
            read_npy(&be).unwrap(),
            Value::F64(Array::from_vec(vec![2.0]).into_dyn())
        );
        let bad_dir = tmp("no-such-dir").join("x.npy");
        assert!(write_npy(&bad_dir, &Value::scalar_f64(1.0)).is_err());
    }
}
