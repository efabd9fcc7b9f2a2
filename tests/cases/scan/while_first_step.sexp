; A condition true on the very first step: a do-while still runs that step
; and stores it, so A has 1 row of the 8 n_steps allows. Sit-sot only,
; a_t = 0.5 a + 1 from a0, until sum(a_t) < 100 (|sum| <= 4.5 here).
; dims: N=3
(program while_first_step
  (input a0 (f64 N))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps 8)
    (fn (a)
      (let a1 (add (mul a 0.5) 1.0))
      (outputs a1 (until (lt (sum a1) 100.0))))))
  (output A (index A -1)))
