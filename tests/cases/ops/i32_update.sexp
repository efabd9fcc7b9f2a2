; Updates, indexing and moves of i32: set_index and set_slice with i32,
; bool and in-range weak int values, take, index, slice, transpose,
; reshape, and an i64 index into i32 data.
(program i32_update
  (input X (i32 3 4))
  (input R (i32 4))
  (input B (bool 4))
  (output (set_index X R 0) (set_index X 2147483647 1 2) (set_slice X B 1 3 1)
          (set_slice X -2147483648 0 3 2) (take X (tensor (i64 3) 2 0 -1))
          (take X (tensor (i64 2) 1 3) 1) (index X 1) (index X -1 2) (slice X 0 3 2)
          (transpose X) (reshape X 4 3) (zeros (i32 2)) (ones (i32 2)) (fill (i32 2) -7)))
