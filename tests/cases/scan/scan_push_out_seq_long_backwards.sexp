; go_backwards over N steps of a sequence of T rows read at taps -1 1
; (unrelated sizes): step t reads X[T-3-t] and X[T-1-t], t < N. Optimized,
; (U x_{t-1}) * x_{t+1} is computed on the T-2 windows before the loop,
; which reads the last N of them going backwards.
; dims: T=9 N=5 D=3
(program scan_push_out_seq_long_backwards
  (input X (f64 T D))
  (input U (f64 D D))
  (input h0 (f64 D))
  (let H (scan (sequences (X (taps -1 1))) (outputs_info (sitsot h0))
    (non_sequences U) (n_steps N) (go_backwards)
    (fn (a c h u) (tanh (add (dot u h) (mul (dot u a) c))))))
  (output H))
