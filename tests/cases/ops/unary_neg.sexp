; neg over a symbolic-shaped input.
; dims: N=3 M=4
(program unary_neg
  (input X (f64 N M))
  (output (neg X)))
