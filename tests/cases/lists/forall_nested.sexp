; forall (SPEC §1 "Nested lists"; issue 41): its fn applied to every
; tensor at the innermost depth, the nesting kept: over a list of vectors
; (a map), a list of sequences (an empty one among them; the fn changes
; the element shape, 2 -> 3, with a captured weight) and a list of lists
; of lists (empty lists at depths 2 and 3; a fn giving scalars, and one
; scaling by 1e-300 so that 5e-324 underflows to 0 and 1e300 stays
; finite); forall over an empty element (its length, 0); a filter reading
; a forall's result.
(program forall_nested
  (input V (list (f64 2)))
  (input L (list (list (f64 2))))
  (input M (list (list (list (f64 2)))))
  (input W (f64 3 2))
  (output
    (forall (fn (x) (tanh (dot W x))) V)
    (forall (fn (x) (tanh (dot W x))) L)
    (forall (fn (x) (sum (abs x))) M)
    (forall (fn (x) (mul x 1e-300)) M)
    (len (forall (fn (x) x) (index M 1)))
    (filter (fn (s) (gt (len s) 0)) (forall (fn (x) (neg x)) L))))
