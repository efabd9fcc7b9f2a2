; the tape's length S and the step count T are symbols: the shortfall is
; found once they are bound (T=4 steps at taps (0 1) need 5 slots, S=4).
; args: run --gen --no-opt --dim T=4 --dim S=4 --dim N=2
(program p
  (input X (f64 T N))
  (input G (f64 S N))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot G (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1) (add g1 (mul x g0)))))
  (output R))
