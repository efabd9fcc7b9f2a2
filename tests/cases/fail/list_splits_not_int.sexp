; row_splits_0 of the archive is float64: splits must be int64 (or int32).
; args: run --no-opt --input L=tests/fixtures/npz/float_splits.npz
(program p
  (input L (list (f64 2)))
  (output (len L)))
