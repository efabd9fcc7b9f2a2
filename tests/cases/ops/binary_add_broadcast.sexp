; dims: N=3 M=4
(program binary_add_broadcast
  (input A (f64 N M))
  (input b (f64 M))
  (output (add A b) (add b A)))
