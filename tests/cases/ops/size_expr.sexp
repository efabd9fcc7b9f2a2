; a symbolic size used as a value is an i64 scalar.
; dims: N=3 M=4
(program size_expr
  (input X (f64 N M))
  (output (add X N) (mul N M) (div N M) (sub (sum X) M)))
