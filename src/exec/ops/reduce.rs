//! Reductions (`sum mean max min prod`, over one axis or all) and running
//! scans (`cumsum cumprod`).

use crate::exec::Value;
use crate::lang::{CumOp, DType, ReduceOp, Type};
use ndarray::{ArrayD, Axis, IxDyn};

/// Normalizes a possibly negative axis for an `ndim`-D operand.
pub fn norm_axis(axis: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if (0..n).contains(&a) {
        Ok(a as usize)
    } else {
        Err(format!(
            "axis {axis} is out of range for a {ndim}-D operand"
        ))
    }
}

fn lanes<T: Clone>(a: &ArrayD<T>, axis: Option<usize>) -> (ArrayD<T>, usize) {
    // All axes: reduce a flat copy along its only axis.
    match axis {
        Some(ax) => (a.clone(), ax),
        None => {
            let flat: Vec<T> = a.iter().cloned().collect();
            let n = flat.len();
            (
                ArrayD::from_shape_vec(IxDyn(&[n]), flat)
                    .unwrap_or_else(|e| unreachable!("a flat vector fits its length: {e}")),
                0,
            )
        }
    }
}

fn reduce_with<T: Clone>(
    a: &ArrayD<T>,
    axis: Option<usize>,
    f: impl Fn(ndarray::ArrayView1<T>) -> Result<T, String>,
) -> Result<ArrayD<T>, String> {
    let (a, ax) = lanes(a, axis);
    let mut err = None;
    let r = a.map_axis(Axis(ax), |lane| match f(lane) {
        Ok(v) => Some(v),
        Err(e) => {
            err = Some(e);
            None
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(r.mapv(|v| v.expect("every lane succeeded when no error was recorded")))
}

fn extreme<T: PartialOrd + Copy>(
    lane: ndarray::ArrayView1<T>,
    name: &str,
    better: fn(&T, &T) -> bool,
) -> Result<T, String> {
    let mut it = lane.iter();
    let Some(&first) = it.next() else {
        return Err(format!(
            "zero-size array to reduction operation {name} which has no identity"
        ));
    };
    let mut best = first;
    #[allow(clippy::eq_op)]
    for &x in it {
        if best != best {
            break; // NaN wins
        }
        if x != x || better(&x, &best) {
            best = x;
        }
    }
    Ok(best)
}

macro_rules! reduce_num {
    ($op:expr, $a:expr, $ax:expr, $zero:expr, $one:expr, $add:expr, $mul:expr) => {
        match $op {
            ReduceOp::Sum | ReduceOp::Mean => {
                reduce_with($a, $ax, |l| Ok(l.iter().fold($zero, |s, &x| $add(s, x))))
            }
            ReduceOp::Prod => reduce_with($a, $ax, |l| Ok(l.iter().fold($one, |s, &x| $mul(s, x)))),
            ReduceOp::Max => reduce_with($a, $ax, |l| extreme(l, "max", |x, b| x > b)),
            ReduceOp::Min => reduce_with($a, $ax, |l| extreme(l, "min", |x, b| x < b)),
        }
    };
}

/// A reduction; the operand is first converted to `out`'s dtype.
pub fn reduce(op: ReduceOp, axis: Option<i64>, a: &Value, out: &Type) -> Result<Value, String> {
    let ax = match axis {
        Some(ax) => Some(norm_axis(ax, a.shape().len())?),
        None => None,
    };
    let count = match ax {
        Some(k) => a.shape()[k],
        None => a.len(),
    } as f64;
    Ok(match a.cast(out.dtype) {
        Value::F64(x) => {
            let r = reduce_num!(
                op,
                &x,
                ax,
                0.0,
                1.0,
                |s: f64, v: f64| s + v,
                |s: f64, v: f64| s * v
            )?;
            Value::F64(if op == ReduceOp::Mean {
                r.mapv(|s| s / count)
            } else {
                r
            })
        }
        Value::F32(x) => {
            let r = reduce_num!(
                op,
                &x,
                ax,
                0.0,
                1.0,
                |s: f32, v: f32| s + v,
                |s: f32, v: f32| s * v
            )?;
            Value::F32(if op == ReduceOp::Mean {
                r.mapv(|s| s / count as f32)
            } else {
                r
            })
        }
        Value::I64(x) => Value::I64(reduce_num!(
            op,
            &x,
            ax,
            0i64,
            1i64,
            i64::wrapping_add,
            i64::wrapping_mul
        )?),
        Value::Bool(x) => Value::Bool(match op {
            ReduceOp::Max => reduce_with(&x, ax, |l| extreme(l, "max", |x, b| x > b))?,
            ReduceOp::Min => reduce_with(&x, ax, |l| extreme(l, "min", |x, b| x < b))?,
            _ => return Err(format!("internal: {} of bool", op.name())),
        }),
    })
}

/// A running sum or product along `axis`, in `out`'s dtype.
pub fn cumulative(op: CumOp, axis: i64, a: &Value, out: &Type) -> Result<Value, String> {
    let ax = Axis(norm_axis(axis, a.shape().len())?);
    Ok(match (a.cast(out.dtype), op) {
        (Value::F64(mut x), CumOp::Cumsum) => {
            x.accumulate_axis_inplace(ax, |p, c| *c += *p);
            Value::F64(x)
        }
        (Value::F64(mut x), CumOp::Cumprod) => {
            x.accumulate_axis_inplace(ax, |p, c| *c *= *p);
            Value::F64(x)
        }
        (Value::F32(mut x), CumOp::Cumsum) => {
            x.accumulate_axis_inplace(ax, |p, c| *c += *p);
            Value::F32(x)
        }
        (Value::F32(mut x), CumOp::Cumprod) => {
            x.accumulate_axis_inplace(ax, |p, c| *c *= *p);
            Value::F32(x)
        }
        (Value::I64(mut x), CumOp::Cumsum) => {
            x.accumulate_axis_inplace(ax, |p, c| *c = c.wrapping_add(*p));
            Value::I64(x)
        }
        (Value::I64(mut x), CumOp::Cumprod) => {
            x.accumulate_axis_inplace(ax, |p, c| *c = c.wrapping_mul(*p));
            Value::I64(x)
        }
        (v, _) => {
            return Err(format!(
                "internal: {} computes in {}",
                op.name(),
                DType::name(v.dtype())
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_means_and_empty_maxima() {
        let x = Value::F64(
            ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1., 2., 3., 4., 5., 6.]).unwrap(),
        );
        let t = Type::new(DType::F64, vec![]);
        let s = reduce(ReduceOp::Sum, Some(-1), &x, &t).unwrap();
        assert_eq!(s.as_f64_array().into_raw_vec_and_offset().0, vec![6., 15.]);
        let m = reduce(ReduceOp::Mean, None, &x, &t).unwrap();
        assert_eq!(m.sum_f64(), 3.5);
        let e = Value::F64(ArrayD::zeros(IxDyn(&[0, 2])));
        assert!(reduce(ReduceOp::Max, Some(0), &e, &t).is_err());
        let c = cumulative(CumOp::Cumsum, 1, &x, &t).unwrap();
        assert_eq!(
            c.as_f64_array().into_raw_vec_and_offset().0,
            vec![1., 3., 6., 4., 9., 15.]
        );
    }
}
