; -1 infers one size.
(program reshape_infer
  (input X (f64 3 4))
  (output (reshape X 2 -1) (reshape X -1 3 2) (reshape X -1) (reshape X 6 -1 1)))
