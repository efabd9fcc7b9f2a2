; row_splits_1 of the archive decreases ([0, 2, 1]): an error naming the
; input (line 5) and the splits.
; args: run --no-opt --input L=tests/fixtures/npz/decreasing.npz
(program p
  (input L (list (list (f64 2))))
  (output (len L)))
