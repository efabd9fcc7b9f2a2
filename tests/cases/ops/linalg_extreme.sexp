; Extreme magnitudes: entries near 1e150 and 1e-150. det overflows to
; inf and underflows to 0 where NumPy's does; slogdet stays finite;
; solve and inv scale exactly.
(program linalg_extreme
  (input X (f64 3 3))
  (input B (f64 3 2))
  (let I (tensor (f64 3 3) 1.0 0.0 0.0 0.0 1.0 0.0 0.0 0.0 1.0))
  (let A (add (matmul X (transpose X)) (mul 2.0 I)))
  (let big (mul A 1e150))
  (let tiny (mul A 1e-150))
  (let (s1 l1) (slogdet big))
  (let (s2 l2) (slogdet tiny))
  (output (det big) (det tiny) s1 l1 s2 l2 (solve big B) (solve tiny B) (inv tiny)
          (cholesky big) (cholesky tiny)))
