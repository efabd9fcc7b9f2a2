; inv of a stack whose second matrix is singular (a zero column): a
; located run-time error naming the matrix, in both modes.
; args: run --gen
(program p
  (input X (f64 2 2))
  (let S (stack (add X (tensor (f64 2 2) 3.0 0.0 0.0 3.0)) (tensor (f64 2 2) 0.0 1.0 0.0 5.0)))
  (output (inv S)))
