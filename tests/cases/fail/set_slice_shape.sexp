; the value does not broadcast to the rows the slice selects.
; args: fmt
(program p
  (input X (f64 5 3))
  (input V (f64 2 3))
  (output (set_slice X V 0 none 2)))
