; neg, abs and sign keep i64; exp and sin of an i64 give f64.
(program unary_i64
  (input K (i64 3 4))
  (output (neg K) (abs K) (sign K) (exp K) (sin K)))
