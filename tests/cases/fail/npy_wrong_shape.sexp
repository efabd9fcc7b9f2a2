; args: run --no-opt --input X=tests/fixtures/npy/f64_4x3.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
