; A nitsot computed from a mitmot slot (dot V g0): the tape has no
; stacked step values to compute it from after the loop, so
; scan-push-out-output refuses the loop. (The slot update is not linear in
; g0, so no linrec takes the loop apart either.)
; dims: T=5 N=3
; scans_after: 1
; not_fires: scan-push-out-output
(program neg_mitmot_push_out_output
  (input X (f64 T N))
  (input G (f64 T N))
  (input V (f64 N N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (non_sequences V)
    (fn (x g0 g1 v) (outputs (add g1 (mul x (tanh g0))) (dot v g0)))))
  (output R Y))
