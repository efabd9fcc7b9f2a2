(program where_basic
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (where (gt A B) A B)))
