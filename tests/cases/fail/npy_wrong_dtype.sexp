; args: run --no-opt --input X=tests/fixtures/npy/i64_3x4.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
