(program stack_2d_scalars
  (input A (f64 3 4))
  (input B (f64 3 4))
  (output (stack A B) (stack (sum A) (max B) (min A))))
