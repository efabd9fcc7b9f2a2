; linrec: h_t = A_t * h_{t-1} + U_t over axis 0 of U. A per step and
; element, a scalar, a row, a column of steps; H0 a row or a scalar; an
; integer U (the recurrence runs in f64); f32; no steps; cumsum (A = 1);
; a factor of magnitude above 1 (geometric growth, exact in NumPy's order).
; dims: T=6
(program linrec
  (input A (f64 T 3))
  (input U (f64 T 3))
  (input h (f64 3))
  (input K (i64 T 3))
  (input F (f32 T 3))
  (input E (f64 0 3))
  (input c (f64 T 1))
  (output (linrec A U h) (linrec 0.9 U h) (linrec (index A 0) U 0.5) (linrec c U h)
          (linrec 0.5 K 1.0) (linrec (cast f32 0.25) F (cast f32 1.0)) (linrec 2.0 E h)
          (linrec 1.0 U 0.0) (linrec 3.5 U h)))
