; nan propagates through sum, max and min.
(program reduce_nan
  (input X (f64 2 6))
  (output (max (log X)) (min (log X) 1) (sum (log X) 0)))
