; args: fmt
(program p
  (input X (f64 3))
  (let A (neg X))
  (let A (exp X))
  (output A))
