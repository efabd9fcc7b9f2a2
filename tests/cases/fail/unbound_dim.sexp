; T is bound by no input and no --dim.
; args: run --no-opt --gen
(program p
  (input X (f64 T 4))
  (output (sum X 0)))
