(program where_broadcast
  (input C (bool 3 4))
  (input a (f64 4))
  (input c (f64 3 1))
  (output (where C a 0.0) (where C a c)))
