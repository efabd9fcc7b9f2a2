//! The chain-K workload of `bench/WORKLOADS.md`, shared by the optimizer
//! bench and its tests: K rnn-shaped scans at small size, each reading the
//! previous one's states as its sequence, each with one loop-invariant
//! product and one elementwise tail.

use eqscan::extract::CostModel;

/// The K the bench runs: 1, 2, 4, ..., 64.
pub const CHAIN_KS: &[usize] = &[1, 2, 4, 8, 16, 32, 64];

/// The small size of WORKLOADS.md: rnn's T = 500 divided by 10 (its other
/// sizes, 256 / 4 = 64, are written in the program).
pub const CHAIN_T: i64 = 50;

/// The cost model chain-K is optimized under: T at the small size.
pub fn chain_model() -> CostModel {
    CostModel::with_dims([("T".to_string(), CHAIN_T)].into_iter().collect())
}

/// The program text of chain-K.
pub fn chain_program(k: usize) -> String {
    let mut s = String::from(
        "(program chain\n  (input W (f64 64 64))\n  (input U (f64 64 64))\n  (input b (f64 64))\n  (input X (f64 T 64))\n  (input h0 (f64 64))\n",
    );
    let mut prev = "X".to_string();
    for i in 0..k {
        s.push_str(&format!(
            "  (let H{i} (scan
    (sequences {prev})
    (outputs_info (sitsot h0))
    (non_sequences W U b)
    (fn (x_t h w u bias)
      (tanh (add (add (dot (dot (transpose w) w) h) (dot u x_t)) bias)))))
  (let E{i} (add (mul H{i} 0.5) 1.0))\n"
        ));
        prev = format!("E{i}");
    }
    s.push_str(&format!("  (output {prev}))\n"));
    s
}
