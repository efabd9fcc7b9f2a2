; Updates take effect together: a and b swap (b also adds the input), and
; an output reads the values from before the call.
; dims: N=4
(program swap
  (input x (f64 N))
  (shared a (f64 N))
  (shared b (f64 N))
  (update a b)
  (update b (add a x))
  (output (add a (mul b 10.0))))
