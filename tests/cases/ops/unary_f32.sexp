; correctly rounded f32 ops stay f32.
(program unary_f32
  (input X (f32 3 4))
  (output (neg (sqrt (abs X))) (abs X)))
