; research §7.2 W9 (test_until_random_infer_shape, made deterministic):
; a map over ten starting points x0 = arange(10) - 5 + e (e within
; +-0.005, scale 0.01), each an inner while loop x_t = x_{t-1} + c until
; x_{t-1} > 5.5 (the condition reads the previous state, not this step's
; output), n_steps 10, c = 1 + dc (dc = 4.8e-5 by the data rule, scale
; 0.0001); L = the sum of every inner output. Inner lengths 10 10 10 9 8 7
; 6 5 4 3 (threshold 5.5 instead of upstream's 5 so that no x_{t-1}, an
; integer plus at most 0.006, comes within 0.49 of it), so dL/de_i is the
; i-th inner length and dL/dc = sum over loops of n(n+1)/2.
; wrt: e dc
; scale: e=0.01 dc=0.0001
(program while_grad_cond_prev
  (input e (f64 10))
  (input dc (f64))
  (let c (add 1.0 dc))
  (let x0 (add (sub (cast f64 (arange 10)) 5.0) e))
  (let S (map
    (fn (s)
      (let Z (scan
        (outputs_info (sitsot s))
        (n_steps 10)
        (fn (z) (outputs (add z c) (until (gt z 5.5))))))
      (sum Z))
    x0))
  (let L (sum S))
  (let (ge gdc) (grad L e dc))
  (output L ge gdc S))
