; The element shape is symbolic: N is bound by the list's values
; (3 vectors of 4) and must agree with V's length.
(program symbolic_element
  (input L (list (f64 N)))
  (input V (f64 N))
  (output (mul (stack L) V) N (add (index L 1) V)))
