; args: fmt
(program p
  (input X (f64 3))
  (let X (neg X))
  (output X))
