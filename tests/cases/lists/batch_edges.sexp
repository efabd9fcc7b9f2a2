; The batching rewrite (docs/lists.md "Batching") on sequences of lengths
; 3, 0, 2, 5, 1 (an empty one; one holding 1e300, where tanh saturates):
; a foldl and a foldr (go_backwards: the padding is read first, masked)
; over each sequence from a captured init, both results lists, and a
; value of both stacked. Run optimized, the two maps become masked loops
; over the padded batch; --no-opt runs them per sequence; NumPy's
; per-sequence loop is the reference.
(program batch_edges
  (input L (list (list (f64 4))))
  (input Wx (f64 3 4))
  (input Wh (f64 3 3))
  (input b (f64 3))
  (input h0 (f64 3))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot Wx x) (dot Wh h)) b))) h0 s)) L))
  (let hr (map (fn (s) (foldr (fn (h x) (tanh (add (add (dot Wx x) (dot Wh h)) b))) h0 s)) L))
  (output hs hr (sum (mul (stack hs) (stack hr)))))
