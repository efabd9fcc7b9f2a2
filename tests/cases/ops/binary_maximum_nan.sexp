; maximum and minimum propagate nan (log of a negative) and handle -inf (log 0).
(program binary_maximum_nan
  (input X (f64 8))
  (input Y (f64 8))
  (output (maximum (log X) Y) (minimum (log X) Y) (maximum Y (log X))))
