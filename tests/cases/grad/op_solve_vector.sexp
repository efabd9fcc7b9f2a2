; solve with a batch of matrices and a 1-D right-hand side (a vector, as
; NumPy 2 reads it): the cotangents through the column form.
; wrt: X b
(program op_solve_vector
  (input X (f64 2 3 3))
  (input b (f64 3))
  (input w (f64 2 3))
  (let A (add X (mul 3.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (sum (mul w (solve A b))))
  (let (gX gb) (grad L X b))
  (output L gX gb))
