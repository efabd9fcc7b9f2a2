; Port of test_grad_of_grad_of_state (G13): the program of G12, its second
; derivative d^2(sum)/dx^2 = sum c_t p_t (p_t - 1) x^(p_t - 2) = -6 + 48 = 42
; at x = 2 (upstream's value), checked by finite differences of the first
; derivative and against PyTensor.
; wrt: u
(program pt_G13_grad_of_grad_of_state
  (input u (f64))
  (let x (add u 2.0))
  (let c (tensor (f64 4) 1.0 2.0 -3.0 4.0))
  (let y (scan (sequences c (arange 1000)) (non_sequences x) (fn (c_t p_t xv) (mul c_t (pow xv p_t)))))
  (let g (grad (sum y) u))
  (output g (grad g u)))
