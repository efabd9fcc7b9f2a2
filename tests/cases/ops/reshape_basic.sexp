(program reshape_basic
  (input X (f64 3 4))
  (output (reshape X 2 6) (reshape X 12) (reshape X 2 3 2) (reshape X 1 12)))
