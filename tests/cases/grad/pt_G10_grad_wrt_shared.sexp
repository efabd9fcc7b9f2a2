; Port of test_grad_wrt_shared (G10; x1 an input here, not a shared
; variable): y_t = v_t x1 mapped over x2 = [2, 3] with x1 = 3 (u is input 0
; of the data rule, exactly 0): d(sum y)/dx1 = 2 + 3 = 5.
; wrt: u
(program pt_G10_grad_wrt_shared
  (input u (f64))
  (let x1 (add u 3.0))
  (let x2 (tensor (f64 2) 2.0 3.0))
  (let y (scan (sequences x2) (non_sequences x1) (fn (v w) (mul v w))))
  (let L (sum y))
  (output L (grad L u)))
