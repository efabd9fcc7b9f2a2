; f32 operands stay f32 (as numpy.linalg). The solution's last bits
; depend on the order of operations (LAPACK's blocked code vs eqscan's
; loops), so the outputs are what every correct f32 solver agrees on:
; the residual test, and the results rounded to 3 decimals.
(program linalg_f32
  (input X (f32 3 3))
  (input B (f32 3 2))
  (let I (tensor (f32 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))
  (let A (add (matmul X (transpose X)) (mul 2.0 I)))
  (let x (solve A B))
  (let r (all (le (abs (sub (matmul A x) B)) 1e-5)))
  (let (sign logdet) (slogdet A))
  (output
    r
    (div (round (mul x 1000.0)) 1000.0)
    (div (round (mul (inv A) 1000.0)) 1000.0)
    (div (round (mul (cholesky A) 1000.0)) 1000.0)
    (div (round (mul (det A) 1000.0)) 1000.0)
    sign
    (div (round (mul logdet 1000.0)) 1000.0)))
