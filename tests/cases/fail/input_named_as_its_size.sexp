; args: run --gen --dim N=3
(program p
  (input N (f64 N))
  (output (mul N 2.0)))
