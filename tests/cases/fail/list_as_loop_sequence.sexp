; scan with a list sequence (an element per step) comes with phase 2 of
; issue 41: a located error at the scan rather than a list read as a
; tensor.
; args: fmt
(program p
  (input L (list (f64 2)))
  (output (scan (sequences L) (fn (x) (sum x)))))
