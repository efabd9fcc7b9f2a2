; Port of test_high_order_grad_sitsot (G4): x_t = x_{t-1}^2, 4 steps, from
; x = 0.95 (u is input 0 of the data rule, exactly 0); the derivatives
; 1-4 of xs[-1] = x^16 are 16x^15, 240x^14, 3360x^13, 43680x^12.
; Output 0 is the third derivative and output 1 the fourth, checked by
; finite differences; all are checked against PyTensor's values.
; wrt: u
(program pt_G4_high_order_grad_sitsot
  (input u (f64))
  (let x (add u 0.95))
  (let xs (scan (outputs_info (sitsot x)) (n_steps 4) (fn (p) (mul p p))))
  (let y (index xs -1))
  (let d1 (grad y u))
  (let d2 (grad d1 u))
  (let d3 (grad d2 u))
  (let d4 (grad d3 u))
  (output d3 d4 y d1 d2))
