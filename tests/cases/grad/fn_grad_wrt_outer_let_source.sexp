; grad inside a fn body with respect to an outer input x while the body
; reads y = tanh(2 x) * w, a let-bound outer value computed from x (and
; w): the gradient follows the outer graph through y (SPEC §1), so the
; body recomputes y from its x (w passed in as an extra non-sequence).
; Was silently zeros: y reached the body as a parameter of its own.
; sum_t G[t] = dL/dx for L = sum_t c_t, which finite differences check.
; wrt: x
; dims: T=4
(program fn_grad_wrt_outer_let_source
  (input x (f64 3))
  (input w (f64 3))
  (input X (f64 T 3))
  (let y (mul (tanh (mul x 2.0)) w))
  (let (C G) (scan (sequences X)
    (fn (xt)
      (let c (sum (sin (mul y xt))))
      (outputs c (grad c x)))))
  (let L (sum C))
  (output L (sum G 0)))
