; research §7.2 W7 (check_grad_until_and_truncate_sequence_taps) without
; truncate_gradient (eqscan has none): sequence taps (-2 0) over
; x = arange(15) + e (e within +-0.005, scale 0.01), r_t = x_{t-2} x_t
; until x_t > 6.5 (upstream: 6 on exact integers; every x is at least 0.49
; from 6.5). At most 13 steps; 6 run (x_t = x_2 .. x_7), r = [0 3 8 15 24
; 35] + O(e), and dL/de ~ [2 3 4 6 8 10 4 5 0 ... 0] (x_{j+2} + x_{j-2}
; where those terms exist; upstream's truncated result is
; [0 0 0 5 6 10 4 5 0 ...]).
; wrt: e
; scale: e=0.01
(program while_grad_seq_taps
  (input e (f64 15))
  (let x (add (cast f64 (arange 15)) e))
  (let R (scan
    (sequences (x (taps -2 0)))
    (fn (xm2 x0) (outputs (mul xm2 x0) (until (gt x0 6.5))))))
  (let L (sum R))
  (let ge (grad L e))
  (output L ge R))
