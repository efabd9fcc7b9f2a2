; cholesky of a symmetric matrix that is not positive definite
; (eigenvalues 3 and -1): a located run-time error, in both modes.
; args: run --gen
(program p
  (input x (f64 2))
  (let A (tensor (f64 2 2) 1.0 2.0 2.0 1.0))
  (output (cholesky A) x))
