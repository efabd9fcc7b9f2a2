; The archive has values but no row_splits_0.
; args: run --no-opt --input L=tests/fixtures/npz/no_splits.npz
(program p
  (input L (list (f64 2)))
  (output (len L)))
