; transpose by a permutation (1 2 0): the inverse permutation back.
; wrt: x
(program op_transpose_perm
  (input C (f64 3 4 2))
  (input x (f64 2 3 4))
  (let L (sum (mul C (transpose x 1 2 0))))
  (output L (grad L x)))
