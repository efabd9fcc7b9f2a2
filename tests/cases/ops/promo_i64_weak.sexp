; i64 with a float literal is f64; with an int literal stays i64.
(program promo_i64_weak
  (input K (i64 3 4))
  (output (add K 0.5) (mul K 2) (div K 2) (mul 1.5 K)))
