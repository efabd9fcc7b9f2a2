(program where_scalar_cond
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (where (gt (sum A) 0.0) A B) (where (lt (sum A) 0.0) A B)))
