; X binds T=3, Y binds T=5.
; args: run --no-opt --input X=tests/fixtures/npy/f64_3x4.npy --input Y=tests/fixtures/npy/f64_5x4.npy
(program p
  (input X (f64 T 4))
  (input Y (f64 T 4))
  (output (add X Y)))
