; A nested loop that reads the outer loop's state: the inner loop over the
; row x_t computes r = tanh(r + e s_{t-1}); the outer s_t = s_{t-1} + r_last.
; push-out-seq must not hoist the inner loop (it reads the state), and the
; outer update is no running fold (r_last reads s).
; dims: T=4 N=3
; scans_after: 2
; not_fires: scan-to-reduction scan-to-cumulative
(program neg_nested_reads_outer_state
  (input X (f64 T N))
  (let S (scan
    (sequences X)
    (outputs_info (sitsot 0.5))
    (fn (row s)
      (let R (scan (sequences row) (outputs_info (sitsot 0.0)) (non_sequences s)
        (fn (e r k) (tanh (add r (mul e k))))))
      (add s (index R -1)))))
  (output S))
