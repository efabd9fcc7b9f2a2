; max of every element (no tie): the cotangent goes to the largest element.
; wrt: x
(program op_max_all
  (input x (f64 3 4))
  (let L (mul 2.0 (max x)))
  (output L (grad L x)))
