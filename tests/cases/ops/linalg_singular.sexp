; Exactly singular matrices: det is 0 and slogdet (0, -inf), as NumPy;
; in a stack the regular matrix keeps its values. One has a zero row, one
; dependent rows, one a zero first column (no pivot at step 0).
(program linalg_singular
  (let S (tensor (f64 4 2 2)
    1.0 2.0 2.0 4.0
    0.0 0.0 3.0 5.0
    0.0 1.0 0.0 7.0
    2.0 1.0 1.0 3.0))
  (let (sign logdet) (slogdet S))
  (output (det S) sign logdet))
