(program index_multi
  (input X (f64 3 4))
  (input Y (f64 2 3 4))
  (output (index X 1 -2) (index Y -1 2) (index Y 0 -1 -1) (index Y 1 0)))
