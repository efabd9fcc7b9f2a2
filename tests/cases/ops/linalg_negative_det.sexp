; Negative determinants: an odd number of row swaps, negative pivots.
(program linalg_negative_det
  (let P (tensor (f64 3 3 3)
    0.0 1.0 0.0  1.0 0.0 0.0  0.0 0.0 1.0
    -2.0 0.0 0.0  0.0 3.0 0.0  0.0 0.0 0.5
    1.0 2.0 3.0  4.0 5.0 6.0  7.0 8.0 10.0))
  (let (sign logdet) (slogdet P))
  (output (det P) sign logdet (inv P)))
