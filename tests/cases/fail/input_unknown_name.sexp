; --input names an input the program does not have.
; args: run --no-opt --gen --input Q=tests/fixtures/npy/f64_3x4.npy
(program p
  (input X (f64 3 4))
  (output (sum X)))
