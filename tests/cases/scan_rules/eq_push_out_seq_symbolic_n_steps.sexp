; An RNN over N steps of a sequence of T rows (T and N unrelated sizes):
; the rows cannot be cut to N with literal bounds, so U x_t is computed on
; all T rows before the loop and the loop reads the first N of them.
; dims: T=7 N=4 D=3
; cost_dims: T=8 N=8 D=64
; scans_after: 1
; parts_after: seqs=1 nonseqs=1 sitsots=1
; fires: scan-push-out-seq
(program eq_push_out_seq_symbolic_n_steps
  (input X (f64 T D))
  (input U (f64 D D))
  (input W (f64 D D))
  (input h0 (f64 D))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences U W)
    (n_steps N)
    (fn (x h u w) (tanh (add (dot w h) (dot u x))))))
  (output H))
