; Tiny magnitudes (X scaled by 1e-300, n_steps N over T rows, going
; backwards): the hoisted (U x_t) * 1e300 keeps the loop's values.
; dims: T=6 N=4 D=3
; cost_dims: T=66 N=64 D=64
; scale: X=1e-300
; scans_after: 1
; parts_after: seqs=1 sitsots=1
; fires: scan-push-out-seq
(program eq_push_out_seq_long_tiny
  (input X (f64 T D))
  (input U (f64 D D))
  (input h0 (f64 D))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences U)
    (n_steps N) (go_backwards)
    (fn (x h u) (add (mul 0.5 h) (mul (dot u x) 1e300)))))
  (output H (index H -1)))
