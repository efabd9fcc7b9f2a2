; args: run --no-opt --input X=tests/fixtures/npy/bad_header.npy
; The header's dictionary never closes: one clause, not the parser's diagram.
(program p
  (input X (f64 3 4))
  (output (sum X)))
