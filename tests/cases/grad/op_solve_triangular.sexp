; solve_triangular reads one triangle: the gradient with respect to the
; other is zero (finite differences agree), the triangle read gets
; -gB Xᵀ; lower and upper, a matrix and a vector right-hand side.
; wrt: X B b
(program op_solve_triangular
  (input X (f64 3 3))
  (input B (f64 3 2))
  (input b (f64 3))
  (input W (f64 3 2))
  (input w (f64 3))
  (let A (add X (mul 3.0 (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))))
  (let L (add (add (sum (mul W (solve_triangular A B true)))
                   (sum (mul W (solve_triangular A B false))))
              (sum (mul w (solve_triangular A b false)))))
  (let (gX gB gb) (grad L X B b))
  (output L gX gB gb))
