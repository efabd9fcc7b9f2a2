; Rows without elements: a map returning its row as it is, and one
; computing on it, over T rows of width 0 (the step tape leaves such a
; loop to the plan; it once failed with "the step tape disagrees with its
; loop", found by the fuzz test).
; dims: T=5
(program map_zero_width
  (input X (f64 T 0))
  (let A (scan (sequences X) (fn (x) x)))
  (let B (scan (sequences X) (fn (x) (mul x 2.0))))
  (output A B))
