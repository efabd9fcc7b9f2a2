; scan-merge-outputs must not merge two states with the same update that
; each read their own previous value: a_t = tanh(a + x_t) and
; b_t = tanh(b + x_t) from different inits.
; dims: T=6 N=3
; scans_after: 1
; parts_after: sitsots=2
; not_fires: scan-merge-outputs
(program neg_merge_outputs_distinct_states
  (input X (f64 T N))
  (input a0 (f64 N))
  (input b0 (f64 N))
  (let (A B) (scan (sequences X) (outputs_info (sitsot a0) (sitsot b0))
    (fn (x a b) (outputs (tanh (add a x)) (tanh (add b x))))))
  (output A B))
