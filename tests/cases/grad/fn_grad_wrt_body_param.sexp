; grad inside a fn body with respect to a body parameter (the step's
; row of the sequence X, an inner name): G[t] = d c_t / d x_t. As
; L = sum_t c_t and only step t reads row t (the state does not depend
; on X), G is dL/dX, which finite differences of L check.
; wrt: X
; dims: T=4
(program fn_grad_wrt_body_param
  (input X (f64 T 3))
  (input h0 (f64 3))
  (let (H C G) (scan (sequences X) (outputs_info (sitsot h0) (nitsot) (nitsot))
    (fn (x h)
      (let c (sum (sin (mul (add x 0.5) (tanh h)))))
      (outputs (tanh (add h 0.25)) c (grad c x)))))
  (let L (sum C))
  (output L G))
