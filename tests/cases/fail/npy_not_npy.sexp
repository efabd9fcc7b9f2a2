; args: run --no-opt --input X=tests/fixtures/npy/not_npy.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
