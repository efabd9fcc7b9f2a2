; Second order through a loop, smallest form: a 1-element sit-sot x_t =
; x_{t-1}^2 / 2 over 5 steps from v; g = d(sum xs)/dv (a backward loop
; with one MIT-MOT tape), f = sum(g * g), and f's gradient with respect
; to v goes through that MIT-MOT: checked by finite differences.
; wrt: v
(program mitmot_grad_grad_sitsot_tiny
  (input v (f64 1))
  (let xs (scan (outputs_info (sitsot v)) (n_steps 5) (fn (x) (mul (mul x x) 0.5))))
  (let g (grad (sum xs) v))
  (let f (sum (mul g g)))
  (output f (grad f v) g))
