; logmatmulexp: log(exp(A) · exp(B)), a vector and a matrix A against a
; matrix B; columns whose terms all underflow exp(B) (B - 1000)
; and overflow it (B + 800), A shifted far (A · 1e4), -inf entries where
; B < 0 (impossible transitions), and a B of -inf only (log 0 = -inf).
; dims: N=5 M=4 K=3
; scale: a=6.0 A=3.0 B=4.0
(program logmatmulexp
  (input a (f64 N))
  (input A (f64 K N))
  (input B (f64 N M))
  (let impossible (log (mul B 0.0)))
  (output (logmatmulexp a B) (logmatmulexp A B)
          (logmatmulexp a (sub B 1000.0)) (logmatmulexp a (add B 800.0))
          (logmatmulexp (mul a 1e4) B) (logmatmulexp A (where (lt B 0.0) impossible B))
          (logmatmulexp a impossible)))
