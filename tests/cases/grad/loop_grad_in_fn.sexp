; grad inside a scan body: each step takes the derivative of its own
; local cost with respect to an inner name (the state) and to an outer
; one (w: a Jacobian row per step); the outer cost is differentiated in
; turn (second order through the loop).
; wrt: x w
; dims: T=4
(program loop_grad_in_fn
  (input x (f64 T))
  (input w (f64))
  (let S (scan (sequences x) (outputs_info (sitsot (fill (f64) 0.5))) (non_sequences w)
    (fn (x_t s wv)
      (let c (mul (tanh (mul wv s)) x_t))
      (let (gs gw) (grad c s wv))
      (add (mul 0.5 s) (add gs gw)))))
  (let L (sum (mul S S)))
  (let (gx gw) (grad L x w))
  (output L gx gw))
