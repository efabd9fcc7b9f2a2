; research §7.2 W5 (test_grad_until_ndim_greater_one): W4 on a 15x5
; matrix whose row t is t + e[t] (e within +-0.005, scale 0.01), until
; all(x_t > 5.5), written min(x_t) > 5.5 (eqscan has no `all`). Every
; element is at least 0.49 from 5.5, so 7 steps run; r_t = x_t^2 (rows),
; L = sum r, dL/de = 2 x on rows 0-6 and 0 on rows 7-14 (the finite
; differences take 16 of the 75 elements).
; wrt: e
; scale: e=0.01
(program while_grad_until_matrix
  (input e (f64 15 5))
  (let x (add (cast f64 (reshape (arange 15) 15 1)) e))
  (let R (scan
    (sequences x)
    (fn (x_t) (outputs (mul x_t x_t) (until (gt (min x_t) 5.5))))))
  (let L (sum R))
  (let ge (grad L e))
  (output L ge R))
