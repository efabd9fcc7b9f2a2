; Port of test_grad_one_output (G5): x_t = u_t W_in + x_{t-1} W (scalars),
; u of 10 steps, the projected cost sum(xs * F); gradients with respect to
; u, x0, W_in and W.
; wrt: u x0 W_in W
(program pt_G5_grad_one_output
  (input u (f64 10))
  (input x0 (f64))
  (input W_in (f64))
  (input W (f64))
  (input F (f64 10))
  (let xs (scan (sequences u) (outputs_info (sitsot x0)) (non_sequences W_in W)
    (fn (u_t x_prev win w) (add (mul u_t win) (mul x_prev w)))))
  (let L (sum (mul xs F)))
  (let (gu gx0 gwin gw) (grad L u x0 W_in W))
  (output L gu gx0 gwin gw))
