; args: run --no-opt --input X=tests/fixtures/npy/does_not_exist.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
