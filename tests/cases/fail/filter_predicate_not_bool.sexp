; a filter's predicate must be a bool scalar, not a number (line 5, the
; predicate `(sum r)`): write a comparison.
; args: fmt
(program p (input X (f64 4 3))
  (output (filter (fn (r) (sum r)) X)))
