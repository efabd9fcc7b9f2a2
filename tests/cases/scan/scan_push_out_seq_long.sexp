; An RNN over N steps of a sequence of T rows (unrelated sizes) read at taps
; -1 0: step t reads X[t] and X[t+1], t < N. Optimized, the term
; U (x_t - 0.5 x_{t-1}) is computed on every window before the loop
; (scan-push-out-seq) and the loop reads its first N rows.
; dims: T=7 N=4 D=3
(program scan_push_out_seq_long
  (input X (f64 T D))
  (input U (f64 D D))
  (input W (f64 D D))
  (input h0 (f64 D))
  (let H (scan (sequences (X (taps -1 0))) (outputs_info (sitsot h0))
    (non_sequences U W) (n_steps N)
    (fn (xm x h u w) (tanh (add (dot w h) (dot u (sub x (mul 0.5 xm))))))))
  (output H (index H -1)))
