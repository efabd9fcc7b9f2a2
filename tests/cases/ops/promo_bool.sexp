; bool with an int literal or i64 is i64; with a float is f64.
(program promo_bool
  (input B (bool 3 4))
  (input K (i64 3 4))
  (input X (f64 3 4))
  (output (add B 1) (mul B 2.5) (add B K) (mul B X)))
