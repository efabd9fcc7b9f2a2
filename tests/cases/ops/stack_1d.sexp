(program stack_1d
  (input a (f64 4))
  (input b (f64 4))
  (input c (f64 4))
  (output (stack a b c) (stack a)))
