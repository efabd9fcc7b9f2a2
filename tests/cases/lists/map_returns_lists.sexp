; A map whose fn returns a list, or a tensor whose leading length is known
; only at run time, gives a list one depth deeper (SPEC §1; issue 41): a
; map inside a map over a list of lists (depth 2, an empty sequence among
; them) and over a list of lists of lists (depth 3, empty lists at depths
; 2 and 3); a scanl over each sequence (its rows become a list); a filter
; of each vector's elements (one keeps none: an empty list of scalars);
; and scanr over a list of lists (a list of states). Extreme magnitudes
; in the values.
(program map_returns_lists
  (input L (list (list (f64 2))))
  (input M (list (list (list (f64 2)))))
  (input V (list (f64 4)))
  (input h (f64 2))
  (output
    (map (fn (s) (map (fn (x) (mul x 2.0)) s)) L)
    (map (fn (s) (scanl (fn (acc x) (add acc x)) h (stack s))) L)
    (map (fn (x) (filter (fn (e) (gt e 0.0)) x)) V)
    (map (fn (b) (map (fn (s) (map (fn (x) (tanh x)) s)) b)) M)
    (scanr (fn (acc s) (add (mul acc 0.5) (sum (stack s) 0))) h L)
    (len (index (map (fn (s) (map (fn (x) (mul x 2.0)) s)) L) 1))))
