; Reversals of operands of different shapes do not move: a (T) times a
; reversed (1) column broadcasts it along axis 0, where reversing the
; product would reverse what the broadcast repeats; and a reversed matrix
; plus a reversed row vector broadcast over its other axis (shapes T×D and
; D: the vector's axis 0 is the matrix's axis 1).
; dims: T=5 D=5
; scans_after: 0
; not_fires: add-reverse mul-reverse
(program neg_reverse_broadcast
  (input a (f64 T))
  (input one (f64 1))
  (input m (f64 T D))
  (input v (f64 D))
  (output (mul (slice a none none -1) (slice one none none -1))
    (add (slice m none none -1) (slice v none none -1))))
