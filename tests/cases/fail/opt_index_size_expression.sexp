; issue 11: an index computed from a size (N + 1), past the end once N is
; bound; the optimized program indexes another node, on another line.
; args: run --gen --dim N=3
(program p
  (input X (f64 N 2))
  (let Z (mul (exp X) 1.0))
  (output (index Z (add N 1))))
