; Nearly singular but not singular: condition numbers near 4e8 and 1e10
; (the pivots of the written forms are exact, so LAPACK and eqscan round
; alike), solve and inv stay finite and det tiny but non-zero.
(program linalg_ill_conditioned
  (input b (f64 2))
  (let A (tensor (f64 2 2) 1.0 1.0 1.0 1.00000001))
  (let H (tensor (f64 3 3) 1.0 0.5 0.3333333333333333 0.5 0.3333333333333333 0.25 0.3333333333333333 0.25 0.2))
  (let (sign logdet) (slogdet A))
  (output (solve A b) (inv A) (det A) sign logdet (det H) (inv H)))
