; dims: N=3
(program create_fill
  (input X (f64 N))
  (output (fill (f64 2 3) 1.5) (fill (i64 2) 7) (fill (f64 N) (sum X)) (fill (bool 2 2) true) (fill (f32 3) 0.25)))
