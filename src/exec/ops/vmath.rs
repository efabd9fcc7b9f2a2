//! Vectorizable elementary functions: `exp`, `log`, `sin`, `cos`, `tanh`
//! and `sigmoid` of `f64`, and their kernels over slices.
//!
//! Owns: the element functions every executor, the fused kernels and the
//! e-graph's constant folding use for these ops, so that every path computes
//! the same bits; and the slice kernels, compiled three times (baseline
//! x86-64, AVX2+FMA and AVX-512F+FMA, chosen at run time by
//! `multiversion`; a wider register runs the same operations on more
//! elements at once). Each function is a
//! branch-free core — range reduction, a polynomial, a rescale — that the
//! compiler turns into SIMD code in a loop, and a fallback to the platform's
//! libm outside the core's range (huge or non-finite arguments, results
//! near overflow). The slice kernels run the core over a chunk, then redo
//! the few out-of-range elements with the fallback, so they return exactly
//! what the scalar functions return, element by element.
//!
//! Accuracy: within 2 ulp of the correctly rounded result over the
//! core's range (the unit tests check it against libm; `tanh`'s bound
//! was measured against 120-bit arithmetic, see [`tanh`]). `exp`'s range
//! reduction and polynomial (and so `sigmoid`'s) and `tanh`'s are
//! evaluated with fused multiply-adds through `mul_add`, which is
//! correctly rounded wherever it runs: one instruction in the AVX2+FMA
//! compilation, libm's `fma` in the baseline one, the same bits either
//! way (exp about 24% faster than with separate multiplies and adds in
//! the polynomial, and 15% more with the reduction fused too: 1.29 ->
//! 1.10 ns per element on the machine measured). Scalar callers use
//! [`scalar`], which chooses the FMA compilation at run time.
//! Must not: use an operation whose result depends on the instruction set
//! (a multiply and an add the compiler may or may not contract, an
//! approximate reciprocal), since every compilation must agree bit for
//! bit.

use multiversion::multiversion;

/// 1.5 · 2^52: adding it rounds a float of magnitude < 2^51 to an integer
/// held in the low bits of the sum.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;
/// The bits of `ROUND_MAGIC` plus zero: subtracting it from the bits of a
/// rounded sum leaves the integer (two's complement).
const ROUND_MAGIC_BITS: u64 = 0x4338_0000_0000_0000;

const LOG2_E: f64 = std::f64::consts::LOG2_E;
/// ln 2 in two parts; the first has 32 significant bits, so `n · LN2_HI` is
/// exact for |n| < 2^21.
const LN2_HI: f64 = 0.693_147_180_369_123_8;
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// Above this |x|, `exp` leaves its core (the result would be subnormal or
/// near overflow).
const EXP_CORE_BOUND: f64 = 708.0;

/// The coefficients of log's remainder series on |s| ≤ 0.1716
/// (s = f/(2+f)): log(1+f) = 2s + s·R(s²) with R(z) ≈ Σ LOG_R[k] z^(k+1),
/// a minimax fit (the one of fdlibm's `e_log.c`, error below 2^-58.45).
const LOG_R: [f64; 7] = [
    6.666_666_666_666_735e-1,
    3.999_999_999_940_942e-1,
    2.857_142_874_366_239e-1,
    2.222_219_843_214_978_4e-1,
    1.818_357_216_161_805e-1,
    1.531_383_769_920_937_3e-1,
    1.479_819_860_511_658_6e-1,
];
/// The bounds, in the high 20 bits of the reduced significand, of the
/// remainders for which `log` adds f²/2 explicitly (|f| near its largest,
/// where the other form loses a bit).
const LOG_WIDE_LO: u64 = 0x6_147a;
const LOG_WIDE_HI: u64 = 0x6_b851;

/// 2/π, and π/2 in three parts of 33, 33 and 53 bits: `k · P1` and `k · P2`
/// are exact for |k| < 2^20.
const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21;
/// Above this |x|, `sin` and `cos` use libm's full range reduction.
const TRIG_CORE_BOUND: f64 = 65_536.0;

/// `tanh` of |x| above this is 1 to the last bit.
const TANH_SATURATED: f64 = 22.0;

/// 1/k! for k = 2..=17: Taylor coefficients of (e^r − 1 − r)/r². `exp`
/// takes the first 12 (|r| ≤ ln2/2, the first omitted term below 2^-60),
/// `tanh` all 16 (0 ≤ r ≤ ln 2, below 2^-57 of the result).
const INV_FACTORIALS: [f64; 16] = [
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
    1.0 / 479_001_600.0,
    1.0 / 6_227_020_800.0,
    1.0 / 87_178_291_200.0,
    1.0 / 1_307_674_368_000.0,
    1.0 / 20_922_789_888_000.0,
    1.0 / 355_687_428_096_000.0,
];

/// (-1)^k / (2k+1)! for k = 1..=9: sin on |r| ≤ π/4.
const SIN_TAYLOR: [f64; 9] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 355_687_428_096_000.0,
    -1.0 / 121_645_100_408_832_000.0,
];

/// (-1)^k / (2k)! for k = 2..=9: cos on |r| ≤ π/4 (after 1 - r²/2).
const COS_TAYLOR: [f64; 8] = [
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40320.0,
    -1.0 / 3_628_800.0,
    1.0 / 479_001_600.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 20_922_789_888_000.0,
    -1.0 / 6_402_373_705_728_000.0,
];

/// Horner's rule over coefficients stored lowest first.
#[inline(always)]
fn horner_rev(x: f64, coeffs: &[f64]) -> f64 {
    let Some((&first, rest)) = coeffs.split_last() else {
        return 0.0;
    };
    let mut acc = first;
    for &c in rest.iter().rev() {
        acc = acc * x + c;
    }
    acc
}

/// `Σ INV_FACTORIALS[k] r^k` for k < 12 by Estrin's scheme, each step one fused
/// multiply-add: pairs `c[2j] + c[2j+1]·r`, then pairs of those with r²,
/// then r⁴ and r⁸. Four multiply-adds deep (with r², r⁴, r⁸ beside them)
/// instead of Horner's eleven, so the vector loops of `exp`, `sigmoid` and
/// `tanh` are no longer bound by the chain's latency (tanh 4.1 -> 3.45
/// ns per element); the same accuracy (the unit tests' bounds).
#[inline(always)]
fn estrin_exp(r: f64) -> f64 {
    let ([q0, q1, q2, _], [r4, r8]) = estrin_quads(r);
    q2.mul_add(r8, q1.mul_add(r4, q0))
}

/// `Σ INV_FACTORIALS[k] r^k` for all 16 by Estrin's scheme (see
/// [`estrin_exp`]), four multiply-adds deep.
#[inline(always)]
fn estrin_expm1(r: f64) -> f64 {
    let ([q0, q1, q2, q3], [r4, r8]) = estrin_quads(r);
    q3.mul_add(r4, q2).mul_add(r8, q1.mul_add(r4, q0))
}

/// Estrin's first two levels over `INV_FACTORIALS`: the four sums
/// `q_j = (c[4j] + c[4j+1]·r) + (c[4j+2] + c[4j+3]·r)·r²`, and r⁴, r⁸
/// (what a caller does not use, the compiler drops).
#[inline(always)]
fn estrin_quads(r: f64) -> ([f64; 4], [f64; 2]) {
    let c = &INV_FACTORIALS;
    let r2 = r * r;
    let r4 = r2 * r2;
    let pair = |j: usize| c[2 * j + 1].mul_add(r, c[2 * j]);
    let quad = |j: usize| pair(2 * j + 1).mul_add(r2, pair(2 * j));
    ([quad(0), quad(1), quad(2), quad(3)], [r4, r4 * r4])
}

/// `exp(x)` for |x| ≤ `EXP_CORE_BOUND`; a meaningless finite value (or
/// NaN) outside.
#[inline(always)]
fn exp_core(x: f64) -> f64 {
    // x = n·ln2 + r, |r| ≤ ln2/2 (about: n from one rounding of
    // x·log2(e), so r may pass ln2/2 by an ulp of it). Fused: each step one
    // rounding (n·LN2_HI is exact, so the first is x - n·LN2_HI rounded).
    let t = x.mul_add(LOG2_E, ROUND_MAGIC);
    let n = t - ROUND_MAGIC;
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, x));
    // e^r = 1 + r + r²·(1/2 + r/6 + ...).
    let p = r.mul_add(r * estrin_exp(r), r);
    // 2^n from the integer in t's low bits.
    let n_bits = t.to_bits().wrapping_sub(ROUND_MAGIC_BITS);
    let scale = f64::from_bits(n_bits.wrapping_add(1023) << 52);
    // 2^n·(1 + p) in one rounding: the bits of (1 + p) rounded, then
    // scaled (exactly, 2^n·e^r being normal over the core's range), one
    // operation and one latency fewer.
    p.mul_add(scale, scale)
}

/// True when `x` is inside `exp`'s core range (false for NaN).
#[inline(always)]
fn exp_in_core(x: f64) -> bool {
    x.abs() <= EXP_CORE_BOUND
}

/// `core(x)` inside the core's range, else libm's `exact(x)`.
#[inline(always)]
fn cored(
    x: f64,
    core: impl Fn(f64) -> f64,
    in_core: impl Fn(f64) -> bool,
    exact: impl Fn(f64) -> f64,
) -> f64 {
    if in_core(x) {
        core(x)
    } else {
        exact(x)
    }
}

/// e^x.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    cored(x, exp_core, exp_in_core, f64::exp)
}

/// `ln(x)` for positive normal finite `x`; a meaningless value outside.
///
/// x = 2^k · m with m in [√2/2, √2): the significand's high bits pick
/// whether m is the significand itself or half of it (bit 20 of
/// `hi + 0x95f64` is set exactly when the significand is at least √2).
/// With f = m - 1 and s = f/(2+f), ln m = f - f²/2 + s(f²/2 + R(s²)),
/// and ln x = k·ln2 + ln m with ln2 in two parts. Integer steps only on
/// the bits (no branch), so the loop vectorizes.
#[inline(always)]
fn log_core(x: f64) -> f64 {
    let bits = x.to_bits();
    let hi = bits >> 32;
    let sig_hi = hi & 0x000f_ffff;
    let halve = (sig_hi + 0x9_5f64) & 0x10_0000;
    // m: x's significand with exponent 0, or -1 when it is at least √2.
    let m = f64::from_bits(((sig_hi | (halve ^ 0x3ff0_0000)) << 32) | (bits & 0xffff_ffff));
    // k + 1023: the biased exponent, one more when m was halved; as a
    // float through the low bits of ROUND_MAGIC (exact, k is small).
    let biased_k = (hi >> 20) + (halve >> 20);
    let k = f64::from_bits(ROUND_MAGIC_BITS + biased_k) - (ROUND_MAGIC + 1023.0);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let odd = w * (LOG_R[1] + w * (LOG_R[3] + w * LOG_R[5]));
    let even = z * (LOG_R[0] + w * (LOG_R[2] + w * (LOG_R[4] + w * LOG_R[6])));
    let r = even + odd;
    let half_f2 = 0.5 * f * f;
    let wide = k * LN2_HI - ((half_f2 - (s * (half_f2 + r) + k * LN2_LO)) - f);
    let narrow = k * LN2_HI - ((s * (f - r) - k * LN2_LO) - f);
    if (LOG_WIDE_LO..=LOG_WIDE_HI).contains(&sig_hi) {
        wide
    } else {
        narrow
    }
}

/// True when `x` is inside `log`'s core range: positive, normal and finite
/// (false for NaN, zeros, subnormals, negatives and infinities).
#[inline(always)]
fn log_in_core(x: f64) -> bool {
    (f64::MIN_POSITIVE..=f64::MAX).contains(&x)
}

/// ln x (0 gives -inf, a negative number NaN, as libm, which computes
/// every argument outside the core).
#[inline(always)]
pub fn log(x: f64) -> f64 {
    cored(x, log_core, log_in_core, f64::ln)
}

/// The quadrant `k mod 4` and remainder `r` of x = k·π/2 + r, |r| ≤ π/4
/// (for |x| ≤ `TRIG_CORE_BOUND`).
#[inline(always)]
fn reduce_pio2(x: f64) -> (u64, f64) {
    let t = x * FRAC_2_PI + ROUND_MAGIC;
    let k = t - ROUND_MAGIC;
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    (t.to_bits() & 3, r)
}

/// sin(x) in quadrant `q` (0..4) of remainder `r`: ±sin r or ±cos r.
#[inline(always)]
fn sin_of_quadrant(q: u64, r: f64) -> f64 {
    let z = r * r;
    let s = r + r * z * horner_rev(z, &SIN_TAYLOR);
    // Keeps the sign of a zero remainder (sin(-0) = -0).
    let s = if r == 0.0 { r } else { s };
    // cos r = w + (the rounding error of w = 1 - z/2) + z²·(...).
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c = w + (((1.0 - w) - hz) + z * z * horner_rev(z, &COS_TAYLOR));
    let v = if q & 1 == 0 { s } else { c };
    if q & 2 == 0 {
        v
    } else {
        -v
    }
}

#[inline(always)]
fn trig_in_core(x: f64) -> bool {
    x.abs() <= TRIG_CORE_BOUND
}

#[inline(always)]
fn sin_core(x: f64) -> f64 {
    let (q, r) = reduce_pio2(x);
    sin_of_quadrant(q, r)
}

#[inline(always)]
fn cos_core(x: f64) -> f64 {
    // cos x = sin(x + π/2): one quadrant on.
    let (q, r) = reduce_pio2(x);
    sin_of_quadrant((q + 1) & 3, r)
}

/// sin x.
#[inline(always)]
pub fn sin(x: f64) -> f64 {
    cored(x, sin_core, trig_in_core, f64::sin)
}

/// cos x.
#[inline(always)]
pub fn cos(x: f64) -> f64 {
    cored(x, cos_core, trig_in_core, f64::cos)
}

/// tanh x, for every x (NaN gives NaN, ±inf gives ±1, -0 gives -0).
///
/// One formula for every argument, with one division and no branch:
/// tanh|x| = m / (m + 2) with m = e^{2|x|} − 1, |x| clamped where tanh
/// is 1, and the sign of x. m comes from 2|x| = n·ln2 + r with
/// 0 ≤ r < ln 2 (n rounded down, not to nearest): m = 2^n·(e^r − 1) +
/// (2^n − 1), a sum of two terms of one sign, so nothing cancels, and
/// with n = 0 (|x| < ln2/2) it is e^r − 1 itself, accurate for tiny x.
/// Error: at most 1.97 ulp from the correctly rounded result over
/// 80,000 arguments checked against 120-bit arithmetic (libm's own:
/// 2.0), about 1.3× as fast as the rational form it replaced (Cephes'
/// below 0.625, an exp above, both computed for every element).
#[inline(always)]
pub fn tanh(x: f64) -> f64 {
    let a = x.abs().min(TANH_SATURATED);
    let y = a + a;
    // n = ⌊y·log2(e)⌋ (about: rounded to nearest after subtracting ½),
    // so r ≥ 0 up to the rounding of the product.
    let t = y.mul_add(LOG2_E, -0.5) + ROUND_MAGIC;
    let n = t - ROUND_MAGIC;
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, y));
    // e^r − 1 = r + r²·(1/2 + r/6 + ...).
    let p = r.mul_add(r * estrin_expm1(r), r);
    let n_bits = t.to_bits().wrapping_sub(ROUND_MAGIC_BITS);
    let scale = f64::from_bits(n_bits.wrapping_add(1023) << 52);
    // 2^n − 1 is exact for n ≤ 53 (n ≤ 64 here; above 53, m rounds to
    // 2^n and the quotient to 1, as it should), so one rounding.
    let m = p.mul_add(scale, scale - 1.0);
    let v = (m / (m + 2.0)).copysign(x);
    // `min` took 22 for a NaN.
    if x.is_nan() {
        x
    } else {
        v
    }
}

/// The logistic function 1 / (1 + e^-x).
#[inline(always)]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + exp(-x))
}

/// Elements per chunk of the slice kernels: the out-of-range check is
/// made once per chunk.
const CHUNK: usize = 64;

/// Applies `core` to a chunk, then `exact` to the elements outside the
/// core's range.
#[inline(always)]
fn chunk_map(
    src: &[f64],
    dst: &mut [f64],
    core: impl Fn(f64) -> f64,
    in_core: impl Fn(f64) -> bool,
    exact: impl Fn(f64) -> f64,
) {
    let mut all_in = true;
    if let (Some(src), Some(dst)) = (src.get(..CHUNK), dst.get_mut(..CHUNK)) {
        // A whole chunk as two halves side by side: two independent
        // chains of the core per iteration, so the vector loop is not
        // bound by one chain's latency (exp and sigmoid about 10%
        // faster; the same element operations).
        let (s0, s1) = src.split_at(CHUNK / 2);
        let (d0, d1) = dst.split_at_mut(CHUNK / 2);
        for i in 0..CHUNK / 2 {
            d0[i] = core(s0[i]);
            d1[i] = core(s1[i]);
            all_in &= in_core(s0[i]) & in_core(s1[i]);
        }
    } else {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = core(x);
            all_in &= in_core(x);
        }
    }
    if !all_in {
        for (d, &x) in dst.iter_mut().zip(src) {
            if !in_core(x) {
                *d = exact(x);
            }
        }
    }
}

/// Which function a slice kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// [`exp`]
    Exp,
    /// [`log`]
    Log,
    /// [`sin`]
    Sin,
    /// [`cos`]
    Cos,
    /// [`tanh`]
    Tanh,
    /// [`sigmoid`]
    Sigmoid,
}

/// `f(x)` for one value, in the compilation chosen for this machine (the
/// same bits as every other, see the module docs; it is the one with the
/// hardware's fused multiply-add): what scalar callers use.
#[multiversion(targets("x86_64+avx2+fma"))]
pub fn scalar(f: Func, x: f64) -> f64 {
    f.scalar(x)
}

impl Func {
    /// The function of one element. Inlined, so that each compilation of
    /// its caller (the FMA one of [`scalar`]) computes it with its own
    /// instructions rather than calling a baseline copy that calls libm's
    /// `fma` for every multiply-add (the same bits, several times slower).
    #[inline(always)]
    pub fn scalar(self, x: f64) -> f64 {
        match self {
            Func::Exp => exp(x),
            Func::Log => log(x),
            Func::Sin => sin(x),
            Func::Cos => cos(x),
            Func::Tanh => tanh(x),
            Func::Sigmoid => sigmoid(x),
        }
    }
}

/// One chunk of `f`: `dst[i] = f(src[i])`.
#[inline(always)]
fn chunk(f: Func, src: &[f64], dst: &mut [f64]) {
    match f {
        Func::Exp => chunk_map(src, dst, exp_core, exp_in_core, f64::exp),
        Func::Log => chunk_map(src, dst, log_core, log_in_core, f64::ln),
        Func::Sin => chunk_map(src, dst, sin_core, trig_in_core, f64::sin),
        Func::Cos => chunk_map(src, dst, cos_core, trig_in_core, f64::cos),
        Func::Tanh => {
            for (d, &x) in dst.iter_mut().zip(src) {
                *d = tanh(x);
            }
        }
        Func::Sigmoid => {
            chunk_map(src, dst, |x| exp_core(-x), exp_in_core, |x| (-x).exp());
            for d in dst.iter_mut() {
                *d = 1.0 / (1.0 + *d);
            }
        }
    }
}

/// `dst[i] = exp(src[i])` for equal-length slices (the shorter length
/// otherwise): [`map_slice`]'s loop for `exp`, inlined into its caller, so
/// that a kernel that exponentiates a small tile of its own per step does
/// not pay a dispatch per tile. It takes the caller's instructions: call
/// it from a function compiled for FMA (with `multiversion`), or each
/// multiply-add is a call of libm's `fma` (the same bits, slower).
#[inline(always)]
pub fn exp_slice(src: &[f64], dst: &mut [f64]) {
    for (s, d) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        chunk(Func::Exp, s, d);
    }
}

/// `dst[i] = f(src[i])` for equal-length slices (the shorter length
/// otherwise).
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub fn map_slice(f: Func, src: &[f64], dst: &mut [f64]) {
    for (s, d) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        chunk(f, s, d);
    }
}

/// `buf[i] = f(buf[i])`.
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub fn map_slice_inplace(f: Func, buf: &mut [f64]) {
    let mut copy = [0.0; CHUNK];
    for d in buf.chunks_mut(CHUNK) {
        let s = &mut copy[..d.len()];
        s.copy_from_slice(d);
        chunk(f, s, d);
    }
}

// ---------------------------------------------------------------------------
// sin and cos of one argument together.
//
// Both functions evaluate the same two polynomials of the same remainder
// and differ only in which one they pick, so computing the pair costs about
// what one of them costs. The pair kernel returns exactly what
// `map_slice(Func::Sin, ..)` and `map_slice(Func::Cos, ..)` return.

/// `(sin x, cos x)` inside the trig core's range: one reduction, one pair of
/// polynomials.
#[inline(always)]
fn sincos_core(x: f64) -> (f64, f64) {
    let (q, r) = reduce_pio2(x);
    (sin_of_quadrant(q, r), sin_of_quadrant((q + 1) & 3, r))
}

/// `sin_dst[i] = sin(src[i])` and `cos_dst[i] = cos(src[i])` over slices of
/// one length (the shortest otherwise): the bits of [`sin`] and [`cos`].
#[multiversion(targets("x86_64+avx512f+avx2+fma", "x86_64+avx2+fma"))]
pub fn sincos_slice(src: &[f64], sin_dst: &mut [f64], cos_dst: &mut [f64]) {
    for ((xs, ss), cs) in src
        .chunks(CHUNK)
        .zip(sin_dst.chunks_mut(CHUNK))
        .zip(cos_dst.chunks_mut(CHUNK))
    {
        let mut all_in = true;
        for ((s, c), &x) in ss.iter_mut().zip(cs.iter_mut()).zip(xs) {
            (*s, *c) = sincos_core(x);
            all_in &= trig_in_core(x);
        }
        if !all_in {
            for ((s, c), &x) in ss.iter_mut().zip(cs.iter_mut()).zip(xs) {
                if !trig_in_core(x) {
                    (*s, *c) = (x.sin(), x.cos());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between two finite floats of
    /// one sign (or both zero).
    fn ulps(a: f64, b: f64) -> u64 {
        if a == b {
            return 0;
        }
        let key = |v: f64| {
            let b = v.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        };
        key(a).abs_diff(key(b))
    }

    fn sweep(lo: f64, hi: f64, n: usize) -> impl Iterator<Item = f64> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f64 / n as f64)
    }

    fn max_ulps(f: fn(f64) -> f64, g: fn(f64) -> f64, xs: impl Iterator<Item = f64>) -> u64 {
        let (mut worst, mut at) = (0, 0.0);
        for x in xs {
            let u = ulps(f(x), g(x));
            if u > worst {
                (worst, at) = (u, x);
            }
        }
        println!("max {worst} ulp at {at}");
        worst
    }

    #[test]
    fn exp_is_within_two_ulp_of_libm() {
        assert!(max_ulps(exp, f64::exp, sweep(-708.0, 708.0, 400_000)) <= 2);
        assert!(max_ulps(exp, f64::exp, sweep(-1.0, 1.0, 200_000)) <= 2);
        assert_eq!(exp(0.0), 1.0);
        assert!(ulps(exp(1.0), std::f64::consts::E) <= 1);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(709.5), 709.5f64.exp());
        assert_eq!(exp(-745.0), (-745.0f64).exp());
    }

    #[test]
    fn log_is_within_one_ulp_of_libm() {
        // Around 1 (where the result cancels), across both forms of the
        // remainder, over the whole normal range by exponent, and at the
        // extremes.
        assert!(max_ulps(log, f64::ln, sweep(0.5, 2.0, 400_000)) <= 1);
        assert!(max_ulps(log, f64::ln, sweep(1.0 - 1e-6, 1.0 + 1e-6, 100_000)) <= 1);
        assert!(max_ulps(log, f64::ln, sweep(0.69, 0.72, 50_000)) <= 1);
        assert!(max_ulps(log, f64::ln, sweep(1.38, 1.43, 50_000)) <= 1);
        assert!(max_ulps(log, f64::ln, sweep(1e-3, 1e6, 400_000)) <= 1);
        let by_exponent = (-1022..=1023).flat_map(|e| {
            let p = 2f64.powi(e);
            [
                p,
                p * 1.000_000_1,
                p * std::f64::consts::SQRT_2,
                p * 1.7,
                p * 1.999_999,
            ]
        });
        assert!(max_ulps(log, f64::ln, by_exponent) <= 1);
        // Exact values: log 1 = +0, log 2^k = k ln 2 as libm rounds it.
        assert_eq!(log(1.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(log(2.0), std::f64::consts::LN_2);
        assert!(ulps(log(std::f64::consts::E), 1.0) <= 1);
        for x in [f64::MIN_POSITIVE, f64::MAX, 1e-300, 1e300, 0.5, 4.0] {
            assert!(ulps(log(x), x.ln()) <= 1, "log({x})");
        }
        // Outside the core: libm's own values.
        assert_eq!(log(0.0), f64::NEG_INFINITY);
        assert_eq!(log(-0.0), f64::NEG_INFINITY);
        assert!(log(-1.0).is_nan() && log(-1e-310).is_nan());
        assert!(log(f64::NEG_INFINITY).is_nan());
        assert!(log(f64::NAN).is_nan());
        assert_eq!(log(f64::INFINITY), f64::INFINITY);
        for x in [5e-324, 1e-310, 2.2e-308] {
            assert_eq!(log(x), x.ln(), "log({x}) subnormal");
        }
    }

    #[test]
    fn sin_cos_are_within_two_ulp_of_libm() {
        for (f, g) in [
            (sin as fn(f64) -> f64, f64::sin as fn(f64) -> f64),
            (cos, f64::cos),
        ] {
            assert!(max_ulps(f, g, sweep(-10.0, 10.0, 400_000)) <= 2);
            assert!(max_ulps(f, g, sweep(-65_536.0, 65_536.0, 400_000)) <= 2);
            assert!(max_ulps(f, g, sweep(-1e-3, 1e-3, 10_000)) <= 2);
        }
        // Near multiples of π/2, where the reduction cancels.
        for k in 1..2000 {
            let x = k as f64 * std::f64::consts::FRAC_PI_2;
            for y in [
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ] {
                assert!(ulps(sin(y), y.sin()) <= 2, "sin({y})");
                assert!(ulps(cos(y), y.cos()) <= 2, "cos({y})");
            }
        }
        assert_eq!(sin(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(cos(0.0), 1.0);
        assert!(sin(f64::INFINITY).is_nan() && cos(f64::NAN).is_nan());
        assert_eq!(sin(1e300), 1e300f64.sin());
    }

    #[test]
    fn tanh_is_within_three_ulp_of_libm() {
        // Both are within 2 ulp of the correctly rounded result (libm's
        // own error reaches 2 ulp), so they may differ by 3.
        assert!(max_ulps(tanh, f64::tanh, sweep(-25.0, 25.0, 400_000)) <= 3);
        assert!(max_ulps(tanh, f64::tanh, sweep(-0.7, 0.7, 200_000)) <= 3);
        assert!(max_ulps(tanh, f64::tanh, sweep(-1e-6, 1e-6, 10_000)) <= 2);
        // Around each step of the reduction (n = 0, 1, 2 and on).
        for k in 0..40 {
            let edge = k as f64 * std::f64::consts::LN_2 / 2.0;
            assert!(max_ulps(tanh, f64::tanh, sweep(edge - 1e-3, edge + 1e-3, 2_000)) <= 3);
        }
        assert_eq!(tanh(-0.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(tanh(f64::INFINITY), 1.0);
        assert_eq!(tanh(f64::NEG_INFINITY), -1.0);
        assert_eq!(tanh(1e308), 1.0);
        assert!(tanh(f64::NAN).is_nan());
        assert!(tanh(-f64::NAN).is_nan());
        assert_eq!(tanh(5e-324), 5e-324);
        assert_eq!(tanh(-1e-310), -1e-310);
        assert_eq!(tanh(22.0), 1.0);
        assert_eq!(tanh(-19.5), -1.0);
        // Odd, and at most 1 in magnitude everywhere.
        for x in sweep(-30.0, 30.0, 10_001) {
            assert_eq!(tanh(-x).to_bits(), (-tanh(x)).to_bits(), "{x}");
            assert!(tanh(x).abs() <= 1.0, "{x}");
        }
    }

    /// tanh against the correctly rounded value, from
    /// `tests/fixtures/vmath/tanh_reference.txt`, made with mpmath at 160
    /// bits:
    ///
    /// ```text
    /// import mpmath, random, struct, math; mpmath.mp.prec = 160; random.seed(20261128)
    /// xs = [random.uniform(0, 1.2) for _ in range(3000)] + [random.uniform(0, 20) for _ in range(800)] \
    ///    + [10**random.uniform(-12, 0) for _ in range(200)] \
    ///    + [k*math.log(2)/2*(1+d) for k in range(1, 30) for d in (-1e-12, -1e-15, 0, 1e-15, 1e-12)]
    /// bits = lambda v: struct.unpack('<Q', struct.pack('<d', v))[0]
    /// for x in xs: print("%016x %016x" % (bits(x), bits(float(mpmath.tanh(mpmath.mpf(x))))))
    /// ```
    #[test]
    fn tanh_is_within_two_ulp_of_the_true_value() {
        let text = include_str!("../../../tests/fixtures/vmath/tanh_reference.txt");
        let mut n = 0;
        let mut worst = (0, 0.0);
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut parts = line.split_whitespace().map(|h| u64::from_str_radix(h, 16));
            let (Some(Ok(x)), Some(Ok(want))) = (parts.next(), parts.next()) else {
                panic!("bad fixture line {line:?}");
            };
            let (x, want) = (f64::from_bits(x), f64::from_bits(want));
            let u = ulps(tanh(x), want);
            if u > worst.0 {
                worst = (u, x);
            }
            assert!(u <= 2, "tanh({x}) = {} is {u} ulp from {want}", tanh(x));
            assert_eq!(tanh(-x).to_bits(), (-tanh(x)).to_bits(), "tanh(-{x})");
            n += 1;
        }
        assert_eq!(n, 4145);
        println!("worst {} ulp at {}", worst.0, worst.1);
    }

    #[test]
    fn the_sincos_kernel_equals_sin_and_cos_bit_for_bit() {
        // Inside the core (both quadrant parities, tiny and exact zeros),
        // at its bound, beyond it (libm's full reduction) and the
        // non-finite values; lengths that end mid-chunk.
        let mut xs: Vec<f64> = sweep(-70_000.0, 70_000.0, 100_003).collect();
        xs.extend(sweep(-4.0, 4.0, 20_011));
        xs.extend([
            0.0,
            -0.0,
            1e-300,
            -5e-324,
            TRIG_CORE_BOUND,
            -TRIG_CORE_BOUND,
            f64::from_bits(TRIG_CORE_BOUND.to_bits() + 1),
            1e22,
            -1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ]);
        for k in 1..3000 {
            let x = k as f64 * std::f64::consts::FRAC_PI_2;
            xs.extend([x, f64::from_bits(x.to_bits() + 1), -x]);
        }
        for len in [xs.len(), 1, 63, 65, 130] {
            let src = &xs[xs.len() - len..];
            let (mut s, mut c) = (vec![0.0; len], vec![0.0; len]);
            sincos_slice(src, &mut s, &mut c);
            let (mut s1, mut c1) = (vec![0.0; len], vec![0.0; len]);
            map_slice(Func::Sin, src, &mut s1);
            map_slice(Func::Cos, src, &mut c1);
            for (k, &x) in src.iter().enumerate() {
                assert_eq!(s[k].to_bits(), s1[k].to_bits(), "sin({x})");
                assert_eq!(c[k].to_bits(), c1[k].to_bits(), "cos({x})");
                assert_eq!(s[k].to_bits(), sin(x).to_bits(), "sin({x}) scalar");
                assert_eq!(c[k].to_bits(), cos(x).to_bits(), "cos({x}) scalar");
            }
        }
        // And against libm: within the module's bound.
        for &x in &xs {
            if x.is_finite() {
                let (s, c) = (sin(x), cos(x));
                assert!(ulps(s, x.sin()) <= 2, "sin({x})");
                assert!(ulps(c, x.cos()) <= 2, "cos({x})");
            }
        }
    }

    #[test]
    fn horner_from_the_first_coefficient_keeps_the_bits() {
        // The earlier forms, from 0 · x + c (a fused 0 · x + c is c too).
        fn from_zero(x: f64, coeffs: &[f64]) -> f64 {
            coeffs.iter().fold(0.0, |acc, &c| acc * x + c)
        }
        let tables: [&[f64]; 3] = [&INV_FACTORIALS[..12], &SIN_TAYLOR, &COS_TAYLOR];
        let xs = sweep(-1000.0, 1000.0, 20_001)
            .chain(sweep(-1.0, 1.0, 20_001))
            .chain([0.0, -0.0, 1e-300, -1e300, f64::MAX, f64::NAN]);
        for x in xs {
            for t in tables {
                let rev: Vec<f64> = t.iter().rev().copied().collect();
                assert_eq!(
                    horner_rev(x, t).to_bits(),
                    from_zero(x, &rev).to_bits(),
                    "{x}"
                );
            }
        }
    }

    #[test]
    fn slice_kernels_equal_the_scalar_functions_bit_for_bit() {
        let mut xs: Vec<f64> = sweep(-800.0, 800.0, 997).collect();
        xs.extend([
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1e300,
            -1e-310,
            1e-310,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
        ]);
        xs.extend(sweep(-3.0, 3.0, 211));
        for f in [
            Func::Exp,
            Func::Log,
            Func::Sin,
            Func::Cos,
            Func::Tanh,
            Func::Sigmoid,
        ] {
            let mut out = vec![0.0; xs.len()];
            map_slice(f, &xs, &mut out);
            let mut inplace = xs.clone();
            map_slice_inplace(f, &mut inplace);
            for ((&x, &a), &b) in xs.iter().zip(&out).zip(&inplace) {
                let want = f.scalar(x);
                assert_eq!(a.to_bits(), want.to_bits(), "{f:?}({x})");
                assert_eq!(b.to_bits(), want.to_bits(), "{f:?}({x}) in place");
            }
        }
    }
}
