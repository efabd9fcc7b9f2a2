(program binary_literal_left
  (input X (f64 3 4))
  (output (sub 1.0 X) (div 2.0 (add (abs X) 1.0)) (mul 3 X)))
