; softmax and log_softmax along the last axis inside a loop step: the
; whole step runs on the step tape as written (each one instruction over
; contiguous lanes), with the plan's bits (tests/plan.rs compares them),
; at scores in the hundreds (scale 40).
; dims: T=6 N=4
; scale: W=40.0
(program softmax_steps_last_axis
  (input X (f64 T N))
  (input W (f64 N N))
  (input h0 (f64 N))
  (let (H L) (scan (sequences X) (outputs_info (sitsot h0) (nitsot)) (non_sequences W)
    (fn (x h w)
      (let p (softmax (dot w h) -1))
      (outputs (add (mul p 0.5) x) (log_softmax (add (expand_dims h 0) w) 1)))))
  (output H L))
