; Port of TestExamples::test_grad_connectivity_matrix (G15): sit-sots
; x_t = x_{t-1}^2, y_t = y_{t-1}, z_t = x_{t-1} + 1, 10 steps; cost
; sum(x + y + z). z0 is never read: PyTensor raises (disconnected), eqscan's
; SPEC gives zeros; x0 and y0 have gradients.
; wrt: x0 y0 z0
(program pt_G15_grad_connectivity_matrix
  (input x0 (f64 2))
  (input y0 (f64 2))
  (input z0 (f64 2))
  (let (xs ys zs) (scan (outputs_info (sitsot x0) (sitsot y0) (sitsot z0)) (n_steps 10)
    (fn (x y z) (outputs (mul x x) y (add x 1.0)))))
  (let L (sum (add (add xs ys) zs)))
  (let (gx gy gz) (grad L x0 y0 z0))
  (output L gx gy gz))
