; filter and filterall over lists of lists (SPEC §1 "Filtering", "Nested
; lists"; issue 41): filter keeps whole elements of a list of sequences
; (by length; by a sum against a captured threshold, where the empty
; sequence sums to 0; one keeping none) and of a list of lists of lists
; (the empty lists at depth 2 dropped); filterall keeps the innermost
; vectors where its predicate holds, the nesting kept (a sequence left
; empty stays, empty); over a list of vectors (depth 1) filterall keeps
; whole elements; a map reads a filtered list. Values 1e300, -1e-300 and
; 5e-324 among ordinary ones.
(program filter_nested
  (input L (list (list (f64 2))))
  (input M (list (list (list (f64 2)))))
  (input V (list (f64 3)))
  (input t (f64))
  (output
    (filter (fn (s) (gt (len s) 1)) L)
    (filter (fn (s) (gt (sum (stack s)) t)) L)
    (filter (fn (s) (gt (len s) 99)) L)
    (filterall (fn (x) (gt (index x 0) t)) L)
    (filter (fn (b) (gt (len b) 0)) M)
    (filterall (fn (x) (gt (sum x) t)) M)
    (filterall (fn (x) (lt (index x 1) 0.0)) V)
    (stack (map (fn (s) (sum (stack s))) (filter (fn (s) (gt (len s) 0)) L)))))
