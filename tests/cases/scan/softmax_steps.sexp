; softmax and log_softmax inside a loop step, as an attention or output
; layer is written: per step, the probabilities softmax(W h) over the last
; axis (on the step tape as one instruction), a state updated with them,
; and a log_softmax over a matrix's rows; the log_softmax along axis 0
; runs on the tape over strided lanes. At scale 40 the scores reach the
; hundreds, where an unshifted exp would overflow.
; dims: T=6 N=4
; scale: W=40.0
(program softmax_steps
  (input X (f64 T N))
  (input W (f64 N N))
  (input h0 (f64 N))
  (let (H P L Q) (scan (sequences X) (outputs_info (sitsot h0) (nitsot) (nitsot) (nitsot)) (non_sequences W)
    (fn (x h w)
      (let p (softmax (dot w h) 0))
      (let m (add (expand_dims x 0) w))
      (outputs (add (mul p 0.5) x) p (log_softmax m 1) (log_softmax m 0)))))
  (output H P L Q))
