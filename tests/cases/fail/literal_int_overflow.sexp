; args: run --gen
; Two integer literals whose exact product does not fit in i64: NumPy
; computes 2^64 exactly (Python integers); eqscan refuses rather than wrap.
(program literal_int_overflow
  (input x (f64 3))
  (output (mul x (mul 4294967296 4294967296))))
