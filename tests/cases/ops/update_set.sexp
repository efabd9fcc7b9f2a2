; set_index and set_slice (PyTensor's set_subtensor, on a copy): a
; scalar broadcast over a row, a row written at a negative index, one
; element by two indices, slices with a negative step, `none` bounds and
; an empty selection, a value broadcast over the slice, i64 and bool
; operands, and X read again after the update (the copy leaves it alone).
(program update_set
  (input X (f64 4 3))
  (input K (i64 4 3))
  (input B (bool 4))
  (let S (set_index X 7.0 1))
  (output S (set_index X (index X 0) -1) (set_index X -2.5 2 -1)
          (set_slice X (index X 3) none none -2) (set_slice X 0.0 1 3 1)
          (set_slice X (tensor (f64 2 1) 1e308 -1e308) 0 2 1) (set_slice X 9.0 5 none 1)
          (set_index K 100 0) (set_slice K (index K 0) -2 none 1)
          (set_index B true 0) (sum X) (sub S X)))
