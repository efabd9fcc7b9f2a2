; Port of test_grad_multiple_outs (G6): x_t = u1_t W_in1 + u2_t W_in2 +
; x_{t-1} W and y_t = x_{t-1} W_out (y0 is never read: its gradient is 0),
; projected cost; gradients with respect to u1, u2, x0, y0 and W_in1.
; wrt: u1 u2 x0 y0 W_in1
(program pt_G6_grad_multiple_outs
  (input u1 (f64 7 2))
  (input u2 (f64 7))
  (input x0 (f64 2))
  (input y0 (f64))
  (input W_in1 (f64 2 2))
  (input W_in2 (f64 2))
  (input W (f64 2 2))
  (input W_out (f64 2))
  (input F1 (f64 7 2))
  (input F2 (f64 7))
  (let (xs ys) (scan (sequences u1 u2) (outputs_info (sitsot x0) (sitsot y0))
    (non_sequences W_in1 W_in2 W W_out)
    (fn (a b xp yp wi1 wi2 w wo)
      (outputs (add (add (dot a wi1) (mul b wi2)) (dot xp w)) (dot xp wo)))))
  (let L (add (sum (mul xs F1)) (sum (mul ys F2))))
  (let (g1 g2 gx0 gy0 gw1) (grad L u1 u2 x0 y0 W_in1))
  (output L g1 g2 gx0 gy0 gw1))
