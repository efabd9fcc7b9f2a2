; args: run --no-opt --input X=tests/fixtures/npy/truncated.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
