; Third order through a tiny loop: x_t = sin(x_{t-1}) w over 3 steps from
; v; (g1v, g1w) = the gradient of sum(xs) (a backward loop), g2 = the
; gradient of sum(g1v g1w) with respect to v (a loop over that loop's
; MIT-MOT), f = sum(g2 g2), and f's gradient with respect to v and w (a
; third loop, over the second one's MIT-MOT), checked by finite
; differences.
; wrt: v w
(program mitmot_third_order_sitsot
  (input v (f64 2))
  (input w (f64 2))
  (let xs (scan (outputs_info (sitsot v)) (non_sequences w) (n_steps 3)
    (fn (x ww) (mul (sin x) ww))))
  (let (g1v g1w) (grad (sum xs) v w))
  (let g2 (grad (sum (mul g1v g1w)) v))
  (let f (sum (mul g2 g2)))
  (let (fv fw) (grad f v w))
  (output f fv fw g2))
