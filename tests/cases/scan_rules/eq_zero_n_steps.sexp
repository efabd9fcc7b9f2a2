; n_steps K over 5 rows, run at K = 0: a map, an invariant output and a
; running sum read at every step. A symbolic n_steps shorter than the
; sequence gives the sequence no slice the rules can write, so the loop
; stays; the 0-row outputs must match.
; dims: K=0
; cost_dims: K=1000
; scans_after: 1
(program eq_zero_n_steps
  (input X (f64 5 2))
  (input w (f64 2))
  (input s0 (f64 2))
  (let (M I S) (scan (sequences X) (outputs_info (nitsot) (nitsot) (sitsot s0)) (non_sequences w) (n_steps K)
    (fn (x ww s) (outputs (mul x 2.0) (exp ww) (add s x)))))
  (output M I S))
