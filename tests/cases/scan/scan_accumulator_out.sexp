; A scalar loss accumulated over an RNN's steps, L_t = sum((h_t - y_t)^2) +
; L_{t-1}, read at its end and at every step. Optimized
; (scan-accumulator-out), the step losses are stacked and summed after the
; loop by a cumsum that starts from L_0 and adds them in the loop's order.
; dims: T=7 D=3
(program scan_accumulator_out
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
  (output (index L -1) L H))
