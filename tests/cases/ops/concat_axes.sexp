(program concat_axes
  (input A (f64 2 4))
  (input B (f64 3 4))
  (input C (f64 2 3))
  (output (concat 0 A B) (concat 1 A C) (concat -1 C A) (concat -2 B A B)))
