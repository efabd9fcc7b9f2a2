; an index read from data (an i64 input, 4 by the data rule): it gets no
; gradient.
; wrt: x
(program op_index_dynamic
  (input x (f64 6 2))
  (input i (i64))
  (let L (sum (tanh (index x (sub i 1)))))
  (output L (grad L x)))
