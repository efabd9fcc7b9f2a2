; A mit-sot (taps -2 -1) while loop (research §7.2 W13, the F9 case of
; scan_catalogue.md: Fibonacci until x_{t-1} >= 34 gives 55): from the two
; values (0 1), x_t = x_{t-2} + x_{t-1} until the previous value x_{t-1}
; (a tap, not this step's output) is at least 34. n_steps 30 is the bound;
; 9 steps run: F = [1 2 3 5 8 13 21 34 55], the last one 55.
(program while_mitsot_fib
  (let F (scan
    (outputs_info (mitsot (tensor (f64 2) 0.0 1.0) (taps -2 -1)))
    (n_steps 30)
    (fn (xm2 xm1) (outputs (add xm2 xm1) (until (ge xm1 34.0))))))
  (output F (index F -1)))
