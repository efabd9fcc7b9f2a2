; grad inside a fn body with respect to y = 3 x, a let-bound outer value
; derived from the input x (captured: a non-sequence), beside x in the
; same grad: gy = d c_t / d y (y is the variable: nothing flows further),
; gx = d c_t / d x (through y, so 3 gy). With L = sum_t c_t,
; dL/dx = 3 sum_t gy, which finite differences of L check; sum_t gx
; (output 2) is the same value, compared across modes.
; wrt: x
; dims: T=4
(program fn_grad_wrt_outer_let_value
  (input x (f64 3))
  (input X (f64 T 3))
  (let y (mul x 3.0))
  (let (C G Gx) (scan (sequences X)
    (fn (xt)
      (let c (sum (sin (mul y xt))))
      (let (gy gx) (grad c y x))
      (outputs c gy gx))))
  (let L (sum C))
  (output L (mul 3.0 (sum G 0)) (sum Gx 0)))
