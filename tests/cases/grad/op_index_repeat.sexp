; the same row indexed twice and another once: the increments add (scatter-
; add, not set).
; wrt: x
(program op_index_repeat
  (input x (f64 4 3))
  (let L (sum (add (mul (index x 1) (index x 1)) (mul 3.0 (index x 3)))))
  (output L (grad L x)))
