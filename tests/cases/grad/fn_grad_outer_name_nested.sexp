; grad in the body of a loop nested in another loop's body, with respect
; to the outer input x, while the inner body reads y = sin(x) * w
; computed at the top level: the gradient follows the outer graph through
; both loops (y recomputed from x in each body). L = sum of every inner
; c; the inner gradients summed are dL/dx, which finite differences check.
; wrt: x
; dims: T=3
(program fn_grad_outer_name_nested
  (input x (f64 2))
  (input w (f64 2))
  (input X (f64 T 2))
  (let y (mul (sin x) w))
  (let (C G) (scan (sequences X)
    (fn (xt)
      (let (Ci Gi) (scan (sequences (stack xt (mul xt 2.0)))
        (fn (r)
          (let c (sum (tanh (mul y r))))
          (outputs c (grad c x)))))
      (outputs (sum Ci) (sum Gi 0)))))
  (let L (sum C))
  (output L (sum G 0)))
