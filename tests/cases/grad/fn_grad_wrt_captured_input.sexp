; grad inside a fn body with respect to an outer input the body captures
; (a closure: the parser passes x as a non-sequence): per step
; G[t] = d c_t / d x, a Jacobian row per step. sum_t G[t] = dL/dx for
; L = sum_t c_t, which finite differences of L check.
; wrt: x
; dims: T=4
(program fn_grad_wrt_captured_input
  (input x (f64 3))
  (input X (f64 T 3))
  (let (C G) (scan (sequences X)
    (fn (xt)
      (let c (sum (sin (mul (tanh (mul x 2.0)) xt))))
      (outputs c (grad c x)))))
  (let L (sum C))
  (output L (sum G 0)))
