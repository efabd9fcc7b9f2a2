; logmatmulexp of a vector and of a matrix: ga = sum_j P_ij g_j and
; gB = P g (summed over the rows of a matrix A), P = exp(a_i + B_ij - r_j).
; wrt: a A B
(program op_logmatmulexp
  (input C (f64 4))
  (input D (f64 3 4))
  (input a (f64 5))
  (input A (f64 3 5))
  (input B (f64 5 4))
  (let L (add (sum (mul C (logmatmulexp a B))) (sum (mul D (logmatmulexp A (mul B 2.0))))))
  (let (ga gA gB) (grad L a A B))
  (output L ga gA gB))
