; A scan body that reads outer names directly (closures become
; non-sequences): h_t = tanh(a h_{t-1} + B x_t), a and B never passed
; explicitly; gradients with respect to both, the sequence and the init.
; wrt: X h0 a B
; dims: T=5
(program loop_closure
  (input X (f64 T 2))
  (input h0 (f64 3))
  (input a (f64))
  (input B (f64 3 2))
  (let H (scan (sequences X) (outputs_info (sitsot h0))
    (fn (x_t h) (tanh (add (mul a h) (dot B x_t))))))
  (let L (sum (mul H H)))
  (let (gX gh0 ga gB) (grad L X h0 a B))
  (output L gX gh0 ga gB))
