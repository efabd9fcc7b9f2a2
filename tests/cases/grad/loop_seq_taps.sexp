; Sequence taps on both sides of the step (-2 and +1) and a mit-sot with
; taps (-2 -1): y_t = 0.5 y_{t-1} - 0.3 y_{t-2} + x_{t-2} x_{t+1}.
; wrt: x y0
; dims: T=8
(program loop_seq_taps
  (input x (f64 T))
  (input y0 (f64 2))
  (let Y (scan (sequences (x (taps -2 1))) (outputs_info (mitsot y0 (taps -2 -1)))
    (fn (xm2 xp1 ym2 ym1) (add (sub (mul 0.5 ym1) (mul 0.3 ym2)) (mul xm2 xp1)))))
  (let L (sum (mul Y Y)))
  (let (gx gy0) (grad L x y0))
  (output L gx gy0))
