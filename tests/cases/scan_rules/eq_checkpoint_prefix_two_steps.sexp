; scan-checkpoint with a step count that has no divisor near its root:
; T = 11 is a prefix of 2 steps and 3 segments of 3 (a prefix of more
; than one row: the tape's rows come reversed). Under the budget of half
; the trace (11 × 3 f64 values, 132 bytes) the prefix's forward loop
; stores its two rows, the segments are recomputed from
; checkpoints, and the prefix's backward loop takes over the segments'
; states last. Outputs as written. (14 scans since index-concat-last:
; the prefix's forward loop keeps only its last state and the cost
; model's price fell from 8.5e15 to 1.5e15.)
; dims: T=11 N=3
; scale: W=0.25 U=0.25
; memory_budget: 132
; fires: scan-checkpoint
; scans_after: 14
; The program is rnn_grad's (benches/programs/rnn_grad.sexp) with `grad` expanded (`eqscan expand`): this harness saturates expanded programs.
(program rnn_grad_prefix2
  (input W (f64 N N))
  (input U (f64 N N))
  (input b (f64 N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (input Y (f64 T N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U b)
    (fn (x_t h_prev w u bias)
      (tanh (add (add (dot w h_prev) (dot u x_t)) bias)))))
  (let _v17 (mul H Y))
  (let L (sum _v17))
  (let (_v18 _v19 _v20 _v21) (scan
    (sequences X ((concat 0 (expand_dims h0 0) H) (taps -1)))
    (outputs_info (mitmot (concat 0 (slice (mul (where true (fill (f64) 1.0) _v17) Y) none none -1) (zeros (f64 1 N))) (in_taps 0 1) (out_taps 1)) (nitsot) (nitsot) (nitsot))
    (non_sequences W U b)
    (go_backwards)
    (fn (x_t h_prev _v5 _v6 w u bias)
      (let _v7 (tanh (add (add (dot w h_prev) (dot u x_t)) bias)))
      (let _v8 (mul _v5 (sub 1.0 (mul _v7 _v7))))
      (outputs (add _v6 (dot (transpose w) _v8)) (mul (expand_dims _v8 1) (expand_dims h_prev 0)) (mul (expand_dims _v8 1) (expand_dims x_t 0)) _v8))))
  (let dh0 (index _v18 -1))
  (let dW (sum _v19 0))
  (let dU (sum _v20 0))
  (let db (sum _v21 0))
  (output L dW dU db dh0))
