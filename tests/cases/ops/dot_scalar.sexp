; numpy.dot with a 0-d operand is a multiplication.
(program dot_scalar
  (input s (f64))
  (input A (f64 3 4))
  (input v (f64 4))
  (output (dot s A) (dot A s) (dot s v) (dot s s)))
