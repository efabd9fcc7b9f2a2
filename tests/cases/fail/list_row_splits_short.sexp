; row_splits_1 ends at 2 but values has 3 rows: an error naming the input
; (line 5).
; args: run --no-opt --input L=tests/fixtures/npz/short_end.npz
(program p
  (input L (list (list (f64 2))))
  (output (len L)))
