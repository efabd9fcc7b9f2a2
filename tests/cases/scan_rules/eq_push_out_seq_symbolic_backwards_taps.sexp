; go_backwards over N steps of a sequence of T rows read at taps -1 and 1
; (T and N unrelated): step t reads rows T-3-t and T-1-t; the term
; (U x_{t-1}) * x_{t+1} is computed on the T-2 windows the sequence allows
; and the loop reads the last N of them, going backwards.
; dims: T=9 N=5 D=3
; cost_dims: T=66 N=64 D=64
; scans_after: 1
; parts_after: seqs=1 sitsots=1
; fires: scan-push-out-seq
(program eq_push_out_seq_symbolic_backwards_taps
  (input X (f64 T D))
  (input U (f64 D D))
  (input h0 (f64 D))
  (let H (scan (sequences (X (taps -1 1))) (outputs_info (sitsot h0))
    (non_sequences U)
    (n_steps N) (go_backwards)
    (fn (a c h u) (tanh (add (dot u h) (mul (dot u a) c))))))
  (output H))
