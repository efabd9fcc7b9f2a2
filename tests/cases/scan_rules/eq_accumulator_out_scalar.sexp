; A scalar loss accumulated over an RNN's steps, the update written with the
; accumulator second: L_t = sum((h_t - y_t)^2) + L_{t-1}, read at its end
; and at every step. Both reads are the running sum of the stacked step
; losses after the loop, L_0 first.
; dims: T=7 D=3
; scans_after: 1
; parts_after: sitsots=1 nitsots=0
; fires: scan-accumulator-out
(program eq_accumulator_out_scalar
  (input X (f64 T D))
  (input Y (f64 T D))
  (input W (f64 D D))
  (input h0 (f64 D))
  (input l0 (f64))
  (let (H L) (scan (sequences X Y) (outputs_info (sitsot h0) (sitsot l0))
    (non_sequences W)
    (fn (x y h l w)
      (let hn (tanh (add (dot w h) x)))
      (let e (sub hn y))
      (outputs hn (add (sum (mul e e)) l)))))
  (output (index L -1) L))
