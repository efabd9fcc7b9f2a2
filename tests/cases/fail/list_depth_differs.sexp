; The archive holds a list of depth 2; the input is declared of depth 1.
; args: run --no-opt --input L=tests/fixtures/npz/d2_f64x2.npz
(program p
  (input L (list (f64 2)))
  (output (len L)))
