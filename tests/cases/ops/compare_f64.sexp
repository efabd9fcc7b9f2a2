(program compare_f64
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (gt A B) (ge A B) (lt A B) (le A B) (eq A B) (ne A B)))
