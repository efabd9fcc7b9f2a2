; n_steps N over T rows, each step reading the state: x_t h_{t-1} reads
; the state, so it stays in the loop; only sin(x_t) is computed before it.
; dims: T=6 N=4
; scans_after: 1
(program neg_push_out_seq_long_reads_state
  (input X (f64 T 2))
  (input h0 (f64 2))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (n_steps N)
    (fn (x h) (add (mul x h) (sin x)))))
  (output H))
