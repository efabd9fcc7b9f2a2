; floor, ceil and round keep an integer or bool operand's dtype and value
; (NumPy 2.4); round takes halves to even (2.5 -> 2, -0.5 -> -0, 3.5 -> 4)
; as numpy.round; an f32 operand stays f32.
(program unary_round_dtypes
  (input K (i64 2 3))
  (input B (bool 3))
  (input F (f32 4))
  (let H (tensor (f64 6) -2.5 -1.5 -0.5 0.5 2.5 3.5))
  (output (floor K) (ceil K) (round K) (floor B) (ceil B) (round H) (floor F) (round F)))
