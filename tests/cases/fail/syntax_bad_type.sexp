; args: fmt
(program p
  (input X (f65 3))
  (output X))
