//! Special functions of one float: `erf`, `erfc`, `gammaln`, `expm1`,
//! `softplus`, `digamma` and `trigamma`, in `f64` (an `f32` operand is
//! computed in `f64` and rounded once).
//!
//! Owns: the scalar definitions the elementwise kernels call. `erf`,
//! `erfc`, `lgamma` and `expm1` are the `libm` crate's (a Rust port of
//! musl's, whose results are within 1 ulp and the same on every machine:
//! no platform library is called); `digamma` and `trigamma` are ours,
//! written as SciPy's are (recurrence to a large argument, the asymptotic
//! series there, reflection for negative arguments, and near digamma's
//! positive root a Taylor series around it so that values near zero keep
//! their relative accuracy). Their special values are SciPy's
//! (`tests/special.rs` compares every function with SciPy's values over
//! the whole range, near poles and at large arguments). Must not: know
//! about arrays or dtypes.

use std::f64::consts::PI;

/// `erf(x)`.
pub fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// `erfc(x) = 1 - erf(x)`, accurate where it is tiny.
pub fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `e^x - 1`, accurate near 0.
pub fn expm1(x: f64) -> f64 {
    libm::expm1(x)
}

/// `log|Γ(x)|` (SciPy's `gammaln`): `+inf` at the poles (0 and the
/// negative integers), `-inf` at `-inf` as SciPy gives.
pub fn gammaln(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    libm::lgamma(x)
}

/// `log(1 + e^x)` without overflow: `max(x, 0) + log1p(e^-|x|)`.
pub fn softplus(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let tail = libm::log1p(libm::exp(-x.abs()));
    if x > 0.0 {
        x + tail
    } else {
        tail
    }
}

/// Digamma's positive root, as a sum of two doubles.
const ROOT_HI: f64 = 1.4616321449683622;
const ROOT_LO: f64 = 9.549995429965697e-17;

/// The Taylor coefficients of digamma around its positive root:
/// `ψ^(k)(root) / k! = (-1)^(k+1) ζ(k+1, root)` for k = 1, 2, ...
const ROOT_SERIES: [f64; 30] = [
    0.9676722454476214,
    -0.44276316898359214,
    0.2584997609556512,
    -0.16394270544240658,
    0.10782405069126239,
    -0.07219956125645476,
    0.048804288164143145,
    -0.033161126474847376,
    0.022597648232218125,
    -0.015424765904948968,
    0.010538791616612182,
    -0.007204534386356875,
    0.004926781395729858,
    -0.0033698016554393317,
    0.00230512632673493,
    -0.0015769367714301987,
    0.0010788252019162975,
    -0.000738070938996006,
    0.0005049532658346026,
    -0.0003454680251063082,
    0.00023635601564027086,
    -0.00016170622091974825,
    0.00011063372768747429,
    -7.569179582195077e-05,
    5.17857579522209e-05,
    -3.543007094765967e-05,
    2.424006611860136e-05,
    -1.658424227185416e-05,
    1.1346384584663872e-05,
    -7.76281766846211e-06,
];

/// Where the series around the root is used: `|x - root| < ROOT_RADIUS`.
const ROOT_RADIUS: f64 = 0.45;

/// The argument from which the asymptotic series is used.
const LARGE: f64 = 10.0;

/// `B_2k / 2k` for k = 1..=8 (digamma's asymptotic series).
const DIGAMMA_ASYMPTOTIC: [f64; 8] = [
    1.0 / 12.0,
    -1.0 / 120.0,
    1.0 / 252.0,
    -1.0 / 240.0,
    1.0 / 132.0,
    -691.0 / 32760.0,
    1.0 / 12.0,
    -3617.0 / 8160.0,
];

/// `B_2k` for k = 1..=8 (trigamma's asymptotic series).
const BERNOULLI: [f64; 8] = [
    1.0 / 6.0,
    -1.0 / 30.0,
    1.0 / 42.0,
    -1.0 / 30.0,
    5.0 / 66.0,
    -691.0 / 2730.0,
    7.0 / 6.0,
    -3617.0 / 510.0,
];

/// `π / tan(πx)` for a non-integer `x`, with the argument reduced
/// exactly first (`x` minus its nearest integer), so that large `x` keep
/// their accuracy.
fn pi_cot_pi(x: f64) -> f64 {
    let r = x - x.round();
    PI / (PI * r).tan()
}

/// `(π / sin(πx))^2` for a non-integer `x`, reduced as [`pi_cot_pi`].
fn pi_csc_pi_squared(x: f64) -> f64 {
    let r = x - x.round();
    let s = PI / (PI * r).sin();
    s * s
}

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)`: `-inf` at `+0`, `+inf` at
/// `-0`, NaN at the negative integers and at `-inf`, as SciPy.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // ψ(x) = ψ(1 - x) - π cot(πx).
        return digamma(1.0 - x) - pi_cot_pi(x);
    }
    let d = (x - ROOT_HI) - ROOT_LO;
    if d.abs() < ROOT_RADIUS {
        let mut acc = 0.0;
        for &c in ROOT_SERIES.iter().rev() {
            acc = (acc + c) * d;
        }
        return acc;
    }
    let (mut y, mut shift) = (x, 0.0);
    while y < LARGE {
        shift += 1.0 / y;
        y += 1.0;
    }
    let inv2 = 1.0 / (y * y);
    let mut series = 0.0;
    for &c in DIGAMMA_ASYMPTOTIC.iter().rev() {
        series = (series + c) * inv2;
    }
    (y.ln() - 0.5 / y - series) - shift
}

/// The trigamma function `ψ'(x)`: `+inf` at 0 and the negative integers
/// and at `-inf`, 0 at `+inf`, as SciPy's `polygamma(1, x)`.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    if x == f64::NEG_INFINITY || (x <= 0.0 && x == x.floor()) {
        return f64::INFINITY;
    }
    if x < 0.0 {
        // ψ'(x) = π² / sin²(πx) - ψ'(1 - x).
        return pi_csc_pi_squared(x) - trigamma(1.0 - x);
    }
    let (mut y, mut shift) = (x, 0.0);
    while y < LARGE {
        shift += 1.0 / (y * y);
        y += 1.0;
    }
    // 1/y + 1/(2y²) + Σ B_2k / y^(2k+1).
    let inv2 = 1.0 / (y * y);
    let mut series = 0.0;
    for &b in BERNOULLI.iter().rev() {
        series = (series + b) * inv2;
    }
    shift + (1.0 + 0.5 / y + series) / y
}
