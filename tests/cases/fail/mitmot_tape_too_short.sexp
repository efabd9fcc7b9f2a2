; a mitmot read at in taps (0 1) over 5 steps needs 6 slots; the tape has 5.
; args: fmt
(program p
  (input X (f64 5 2))
  (input G (f64 5 2))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot G (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1) (add g1 (mul x g0)))))
  (output R))
