//! Random keys and draws (SPEC §1 "Random numbers"): the Philox4x32-10
//! generator and the kernels of `key`, `split`, `fold_in`, `uniform`,
//! `normal`, `bernoulli` and `categorical`.
//!
//! Owns: the generator (Philox4x32-10 of Random123, checked against its
//! known-answer vectors), how a key is derived from a seed or another key,
//! and how the bits of a key's stream become floats, normals, booleans and
//! categories. Every draw is a pure function of its key computed with
//! integer arithmetic, IEEE-exact operations (`*`, `+`, `sqrt`) and
//! `libm`'s software `log`, `sin` and `cos`, so the same key gives the same
//! bits on every machine and in every executor. Must not: know about
//! programs, loops or the e-graph.
//!
//! Conventions (docs/random.md repeats them):
//! - A key is 64 bits, the two 32-bit words of a Philox4x32-10 key, stored
//!   as one `i64` (low word in the low bits); `run` writes keys as `int64`.
//! - `(key SEED)` is the seed's bits.
//! - `(fold_in K I)` is the first two words of `philox(counter = (I low,
//!   I high, 0, 1), key = K)`; `(split K N)` is `fold_in(K, 0..N)`, so
//!   `(index (split K N) i)` equals `(fold_in K i)` for `0 <= i < N`.
//! - The stream of a key is the blocks `philox(counter = (b low, b high, 0,
//!   0), key = K)` for `b = 0, 1, ...` (word 3 separates draws from
//!   derived keys). `uniform` f64 element `e` takes block `e / 2`, words
//!   `2(e % 2)` (low) and `2(e % 2) + 1` (high), and keeps the high 53 of
//!   those 64 bits times 2^-53; f32 element `e` takes word `e % 4` of block
//!   `e / 4`, its high 24 bits times 2^-24. Both lie in [0, 1).
//! - `normal` elements `2p` and `2p + 1` come from block `p` (two f64
//!   uniforms `u1`, `u2` as above) by Box–Muller: `r = sqrt(-2 log(1 - u1))`
//!   (`1 - u1` is in (0, 1], never log(0), so `|z| <= 8.58`), `z = r
//!   cos(2π u2)`, `r sin(2π u2)`. An f32 normal is the f64 one rounded.
//! - `bernoulli` element `e` is `u_e < p_e` with `u_e` the f64 uniform
//!   element `e` (so `p <= 0` and NaN are never true, `p >= 1` always).
//! - `categorical` is Gumbel-max: logit element `e` (row-major) gets the
//!   noise `-log(-log(v_e))`, `v_e = (high 52 bits + 1/2) 2^-52` in (0, 1)
//!   (exact) from the bits of f64 uniform element `e`; a row's draw is the first index of
//!   the largest noisy logit, so a `-inf` logit is never drawn while the
//!   row holds a larger one (a row of `-inf` and NaN gives 0).
//! - An array of keys draws once per key: the result's leading axes are
//!   the keys', each key's draw laid out after them.

use crate::exec::ops::elementwise::broadcast_shapes;
use crate::exec::value::Value;
use crate::lang::{DType, Dim};
use ndarray::{ArrayD, IxDyn, Zip};

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// Counter word 3 of a draw's blocks.
const DRAW: u32 = 0;
/// Counter word 3 of a derived key's block.
const DERIVE: u32 = 1;

/// 2^-53.
const TWO_M53: f64 = 1.0 / 9_007_199_254_740_992.0;
/// 2^-52.
const TWO_M52: f64 = 1.0 / 4_503_599_627_370_496.0;
/// 2^-24.
const TWO_M24: f32 = 1.0 / 16_777_216.0;

/// Philox4x32 with 10 rounds (Salmon et al., SC11; Random123's
/// `philox4x32_R(10, ctr, key)`): the key is bumped by the Weyl constants
/// before every round but the first.
pub fn philox4x32_10(ctr: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (ctr, key);
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        }
        let p0 = u64::from(M0) * u64::from(c[0]);
        let p1 = u64::from(M1) * u64::from(c[2]);
        c = [
            ((p1 >> 32) as u32) ^ c[1] ^ k[0],
            p1 as u32,
            ((p0 >> 32) as u32) ^ c[3] ^ k[1],
            p0 as u32,
        ];
    }
    c
}

/// The two Philox key words of a stored key.
fn words(key: i64) -> [u32; 2] {
    let u = key as u64;
    [u as u32, (u >> 32) as u32]
}

/// The stored key of two words.
fn join(lo: u32, hi: u32) -> i64 {
    ((u64::from(hi) << 32) | u64::from(lo)) as i64
}

/// Block `b` of a key's stream.
fn block(key: [u32; 2], b: u64) -> [u32; 4] {
    philox4x32_10([b as u32, (b >> 32) as u32, 0, DRAW], key)
}

/// The key of a seed.
pub fn key_of_seed(seed: i64) -> i64 {
    seed
}

/// The key derived from `key` and `i` (`fold_in`, and row `i` of `split`).
pub fn fold_in(key: i64, i: i64) -> i64 {
    let i = i as u64;
    let out = philox4x32_10([i as u32, (i >> 32) as u32, 0, DERIVE], words(key));
    join(out[0], out[1])
}

/// The high 53 bits of the 64 bits `hi:lo`.
fn bits53(lo: u32, hi: u32) -> u64 {
    ((u64::from(hi) << 32) | u64::from(lo)) >> 11
}

/// Calls `f(e, bits)` with the 53 bits of f64 uniform element `e` for
/// `e` in `0..n`, in order.
fn for_each_bits53(key: i64, n: usize, mut f: impl FnMut(usize, u64)) {
    let k = words(key);
    let mut e = 0;
    let mut b = 0u64;
    while e < n {
        let w = block(k, b);
        f(e, bits53(w[0], w[1]));
        if e + 1 < n {
            f(e + 1, bits53(w[2], w[3]));
        }
        e += 2;
        b += 1;
    }
}

/// The f64 uniforms of `key` in [0, 1), `out.len()` of them.
pub fn uniform_f64(key: i64, out: &mut [f64]) {
    for_each_bits53(key, out.len(), |e, u| out[e] = u as f64 * TWO_M53);
}

/// The f32 uniforms of `key` in [0, 1), `out.len()` of them.
pub fn uniform_f32(key: i64, out: &mut [f32]) {
    let k = words(key);
    for (b, chunk) in out.chunks_mut(4).enumerate() {
        let w = block(k, b as u64);
        for (x, word) in chunk.iter_mut().zip(w) {
            *x = (word >> 8) as f32 * TWO_M24;
        }
    }
}

/// The standard normals of `key`, `out.len()` of them (Box–Muller on
/// pairs of f64 uniforms; always finite, at most 8.58 in magnitude).
pub fn normal_f64(key: i64, out: &mut [f64]) {
    let k = words(key);
    for (b, chunk) in out.chunks_mut(2).enumerate() {
        let w = block(k, b as u64);
        let u1 = bits53(w[0], w[1]) as f64 * TWO_M53;
        let u2 = bits53(w[2], w[3]) as f64 * TWO_M53;
        // 1 - u1 is exact and in (0, 1]: the log is finite.
        let r = (-2.0 * libm::log(1.0 - u1)).sqrt();
        let theta = std::f64::consts::TAU * u2;
        chunk[0] = r * libm::cos(theta);
        if let Some(z1) = chunk.get_mut(1) {
            *z1 = r * libm::sin(theta);
        }
    }
}

/// `bernoulli`: element `e` is `u_e < p[e]`.
pub fn bernoulli(key: i64, p: &[f64], out: &mut [bool]) {
    for_each_bits53(key, p.len(), |e, u| out[e] = (u as f64 * TWO_M53) < p[e]);
}

/// `categorical` on row-major rows of `n` logits: one index per row.
pub fn categorical(key: i64, logits: &[f64], n: usize, out: &mut [i64]) {
    let mut best = vec![(f64::NEG_INFINITY, 0i64); out.len()];
    for_each_bits53(key, logits.len(), |e, u| {
        let (row, j) = (e / n, e % n);
        // The high 52 bits plus 1/2, times 2^-52: exact (53 significant
        // bits), in [2^-53, 1 - 2^-53], so both logs are finite.
        let v = ((u >> 1) as f64 + 0.5) * TWO_M52;
        let score = logits[e] - libm::log(-libm::log(v));
        if score > best[row].0 {
            best[row] = (score, j as i64);
        }
    });
    for (o, (_, j)) in out.iter_mut().zip(best) {
        *o = j;
    }
}

/// The keys of a key value, row-major.
fn keys(k: &Value) -> Result<Vec<i64>, String> {
    match k {
        Value::I64(a) => Ok(a.iter().copied().collect()),
        other => Err(format!(
            "internal: a key is stored as i64, got {}",
            other.dtype()
        )),
    }
}

/// Runs `draw` once per key of `k`, each filling `per` elements of the
/// result, laid out after the keys' axes.
fn per_key<T: Clone + Default>(
    k: &Value,
    draw_shape: &[usize],
    mut draw: impl FnMut(i64, &mut [T]),
) -> Result<ArrayD<T>, String> {
    let ks = keys(k)?;
    let per: usize = draw_shape.iter().product();
    let mut shape = k.shape().to_vec();
    shape.extend_from_slice(draw_shape);
    let total = ks
        .len()
        .checked_mul(per)
        .ok_or("the result has too many elements")?;
    let mut data = vec![T::default(); total];
    if per > 0 {
        for (key, chunk) in ks.into_iter().zip(data.chunks_mut(per)) {
            draw(key, chunk);
        }
    }
    ArrayD::from_shape_vec(IxDyn(&shape), data).map_err(|e| format!("internal: {e}"))
}

/// `(key SEED)`.
pub fn make_key(seed: &Value) -> Result<Value, String> {
    let s = seed.to_array::<i64>();
    Ok(Value::I64(s.mapv(key_of_seed)))
}

/// `(split KEY N)`.
pub fn split(key: &Value, n: &Dim, dims: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    let n = n
        .eval(dims)
        .ok_or_else(|| format!("the size {n} is not bound"))?;
    let n = usize::try_from(n).map_err(|_| format!("cannot split into {n} keys"))?;
    let out = per_key(key, &[n], |k, chunk: &mut [i64]| {
        for (i, x) in chunk.iter_mut().enumerate() {
            *x = fold_in(k, i as i64);
        }
    })?;
    Ok(Value::I64(out))
}

/// `(fold_in KEY I)`, broadcast.
pub fn fold_in_values(key: &Value, i: &Value) -> Result<Value, String> {
    let shape = broadcast_shapes(&[key.shape(), i.shape()])?;
    let (k, i) = (key.to_array::<i64>(), i.to_array::<i64>());
    let (Some(kb), Some(ib)) = (k.broadcast(IxDyn(&shape)), i.broadcast(IxDyn(&shape))) else {
        return Err(format!(
            "cannot broadcast keys of shape {:?} with indices of shape {:?}",
            key.shape(),
            i.shape()
        ));
    };
    Ok(Value::I64(
        Zip::from(&kb).and(&ib).map_collect(|&k, &i| fold_in(k, i)),
    ))
}

/// `(uniform KEY TYPE)` with TYPE's runtime shape `shape`.
pub fn uniform(key: &Value, dtype: DType, shape: &[usize]) -> Result<Value, String> {
    match dtype {
        DType::F64 => Ok(Value::F64(per_key(key, shape, uniform_f64)?)),
        DType::F32 => Ok(Value::F32(per_key(key, shape, uniform_f32)?)),
        d => Err(format!("internal: uniform draws floats, not {d}")),
    }
}

/// `(normal KEY TYPE)` with TYPE's runtime shape `shape`.
pub fn normal(key: &Value, dtype: DType, shape: &[usize]) -> Result<Value, String> {
    let z = per_key(key, shape, normal_f64)?;
    match dtype {
        DType::F64 => Ok(Value::F64(z)),
        DType::F32 => Ok(Value::F32(z.mapv(|x| x as f32))),
        d => Err(format!("internal: normal draws floats, not {d}")),
    }
}

/// `(bernoulli KEY P)`.
pub fn bernoulli_values(key: &Value, p: &Value) -> Result<Value, String> {
    let probs: Vec<f64> = p.to_array::<f64>().iter().copied().collect();
    let out = per_key(key, p.shape(), |k, chunk: &mut [bool]| {
        bernoulli(k, &probs, chunk)
    })?;
    Ok(Value::Bool(out))
}

/// `(categorical KEY LOGITS)`.
pub fn categorical_values(key: &Value, logits: &Value) -> Result<Value, String> {
    let Some((&n, rows)) = logits.shape().split_last() else {
        return Err("the logits must have at least one axis".into());
    };
    if n == 0 {
        return Err(format!(
            "cannot draw from an empty row: the logits have shape {}",
            logits.shape_str()
        ));
    }
    let ls: Vec<f64> = logits.to_array::<f64>().iter().copied().collect();
    let out = per_key(key, rows, |k, chunk: &mut [i64]| {
        categorical(k, &ls, n, chunk)
    })?;
    Ok(Value::I64(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's `kat_vectors`, the three `philox4x32 10` lines:
    /// counter (4 words), key (2 words), expected output (4 words).
    #[test]
    fn philox4x32_10_known_answers() {
        let cases: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
            (
                [0, 0, 0, 0],
                [0, 0],
                [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
            ),
            (
                [u32::MAX; 4],
                [u32::MAX; 2],
                [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
            ),
            (
                [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
                [0xa409_3822, 0x299f_31d0],
                [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
            ),
        ];
        for (ctr, key, want) in cases {
            assert_eq!(philox4x32_10(ctr, key), want);
        }
    }

    #[test]
    fn key_words_round_trip() {
        for k in [0i64, -1, i64::MIN, i64::MAX, 0x1234_5678_9abc_def0] {
            let w = words(k);
            assert_eq!(join(w[0], w[1]), k);
        }
    }

    #[test]
    fn split_rows_are_fold_in() {
        let k = Value::I64(ndarray::arr0(42i64).into_dyn());
        let s = split(&k, &Dim::known(5), &|_| None).unwrap();
        let Value::I64(s) = s else { panic!() };
        for i in 0..5 {
            assert_eq!(s[[i]], fold_in(42, i as i64));
        }
    }

    #[test]
    fn uniform_ends_and_normal_extremes() {
        // The largest 53-bit value maps below 1, zero to 0.
        assert!(((1u64 << 53) - 1) as f64 * TWO_M53 < 1.0);
        assert!(((1u32 << 24) - 1) as f32 * TWO_M24 < 1.0);
        // The smallest 1 - u1 is 2^-53: r is finite and at most 8.58.
        let r = (-2.0 * libm::log(TWO_M53)).sqrt();
        assert!(r.is_finite() && r < 8.58);
        // The open-interval noise of categorical is finite at both ends.
        for u in [0u64, (1u64 << 53) - 1] {
            let v = ((u >> 1) as f64 + 0.5) * TWO_M52;
            assert!(v > 0.0 && v < 1.0);
            assert!(libm::log(-libm::log(v)).is_finite());
        }
    }

    #[test]
    fn f32_normal_is_the_rounded_f64_one() {
        let k = Value::I64(ndarray::arr0(7i64).into_dyn());
        let a = normal(&k, DType::F64, &[5]).unwrap();
        let b = normal(&k, DType::F32, &[5]).unwrap();
        assert_eq!(a.cast(DType::F32), b);
    }
}
