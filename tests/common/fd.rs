//! The finite-difference gradient check shared by the gradient harnesses
//! (`tests/grad_cases.rs`, `tests/proptest_grad.rs`): central differences
//! of a program's scalar output 0 in f64, against its gradient outputs.
//!
//! Must not: know where programs come from or how they are prepared; the
//! caller passes a function that runs one.
#![allow(dead_code)]

use eqscan::exec::Value;
use eqscan::lang::DType;

/// The finite-difference step, relative to `max(1, |x|)`. Central
/// differences err by about `h²/6 · |L'''|` (truncation) plus
/// `ε·|L| / h` (rounding, ε = 2.2e-16): at h = 1e-5 both are near 1e-11
/// for the O(1) values of the data rule, the balance point of the two
/// (h ≈ ε^(1/3) ≈ 6e-6). PyTensor's `verify_grad` uses a one-sided
/// difference with h = 1e-7 in f64, whose error is O(h); the central one
/// is four orders more accurate at this step.
pub const FD_STEP: f64 = 1e-5;

/// A gradient element passes when `|g - fd| <= FD_RTOL·|fd| + FD_ATOL·s`,
/// s = max(1, |L|, max |fd| over that gradient): the error estimate above
/// is about 1e-11·s, so 1e-6 leaves five orders of headroom (loops and
/// second derivatives grow the truncation term) while a wrong gradient
/// (a dropped term, a sign, a missed broadcast sum, an off-by-one step)
/// is wrong by a sizeable fraction of s.
pub const FD_RTOL: f64 = 1e-6;
pub const FD_ATOL: f64 = 1e-6;

/// Inputs with at most this many elements are perturbed at every element;
/// larger ones at this many evenly spread elements (first and last
/// included).
pub const FD_ALL: usize = 16;

/// The flat (row-major) element positions finite differences perturb in an
/// input of `n` elements: all of them up to [`FD_ALL`], else [`FD_ALL`]
/// evenly spread ones, the first and the last included.
pub fn fd_positions(n: usize) -> Vec<usize> {
    if n <= FD_ALL {
        (0..n).collect()
    } else {
        (0..FD_ALL).map(|j| j * (n - 1) / (FD_ALL - 1)).collect()
    }
}

/// The cost: output 0, a float scalar.
pub fn cost_of(outputs: &[Value]) -> Result<f64, String> {
    let l = outputs.first().ok_or("the program has no outputs")?;
    if !l.shape().is_empty() || !matches!(l.dtype(), DType::F64 | DType::F32) {
        return Err(format!(
            "output 0 must be a float scalar (the cost), got {:?} {:?}",
            l.dtype(),
            l.shape()
        ));
    }
    l.to_f64_scalar()
        .ok_or_else(|| "output 0 is not a scalar".to_string())
}

/// `inputs` with element `pos` (row-major) of input `k` moved by `delta`.
pub fn perturbed(inputs: &[Value], k: usize, pos: usize, delta: f64) -> Vec<Value> {
    let mut moved = inputs.to_vec();
    if let Value::F64(a) = &mut moved[k] {
        if let Some(x) = a.iter_mut().nth(pos) {
            *x += delta;
        }
    }
    moved
}

/// Evaluates a program on a set of inputs.
pub type RunFn<'a> = dyn FnMut(&[Value]) -> Result<Vec<Value>, String> + 'a;

/// The finite-difference check: for each `(k, name)` of `wrt` (input k of
/// `inputs`, an f64 array), output `1 + j` of `outputs` (the j-th
/// gradient) must have the input's shape and dtype and match central
/// differences of output 0 at [`fd_positions`] (within `FD_RTOL` /
/// `FD_ATOL`, see there). `run` evaluates the program on other inputs.
pub fn fd_check(
    run: &mut RunFn<'_>,
    inputs: &[Value],
    wrt: &[(usize, String)],
    outputs: &[Value],
) -> Result<(), String> {
    let cost = cost_of(outputs)?;
    if outputs.len() < 1 + wrt.len() {
        return Err(format!(
            "{} outputs: the cost and {} gradients expected",
            outputs.len(),
            wrt.len()
        ));
    }
    let mut errors = Vec::new();
    for (j, (k, name)) in wrt.iter().enumerate() {
        let x = &inputs[*k];
        let g = &outputs[1 + j];
        if x.dtype() != DType::F64 {
            return Err(format!(
                "wrt {name}: finite differences need an f64 input, {name} is {:?}",
                x.dtype()
            ));
        }
        if g.dtype() != x.dtype() || g.shape() != x.shape() {
            errors.push(format!(
                "d/d{name} (output {}): {:?} {:?}, but {name} is {:?} {:?}",
                1 + j,
                g.dtype(),
                g.shape(),
                x.dtype(),
                x.shape()
            ));
            continue;
        }
        let xs = super::elements(x);
        let gs = super::elements(g);
        let mut fds = Vec::new();
        for pos in fd_positions(xs.len()) {
            let h = FD_STEP * xs[pos].abs().max(1.0);
            let up = cost_of(&run(&perturbed(inputs, *k, pos, h))?)?;
            let down = cost_of(&run(&perturbed(inputs, *k, pos, -h))?)?;
            fds.push((pos, (up - down) / (2.0 * h)));
        }
        let scale = fds
            .iter()
            .map(|(_, fd)| fd.abs())
            .fold(cost.abs().max(1.0), f64::max);
        let mut bad = Vec::new();
        for &(pos, fd) in &fds {
            let tol = FD_RTOL * fd.abs() + FD_ATOL * scale;
            // Written so that a NaN on either side fails.
            let close = (gs[pos] - fd).abs() <= tol;
            if !close {
                bad.push(format!(
                    "  element {pos}: got {:?}, finite differences {fd:?}",
                    gs[pos]
                ));
            }
        }
        if !bad.is_empty() {
            let n_bad = bad.len();
            bad.truncate(5);
            errors.push(format!(
                "d/d{name} (output {}): {n_bad} of {} checked elements differ from finite differences (scale {scale:e}):\n{}",
                1 + j,
                fds.len(),
                bad.join("\n")
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}
