; Loops over a list of sequences (depth 2; lengths 3, 0, 2, 5, 1): a map
; whose fn runs an Elman step over its sequence (foldl, and foldr from
; the end) gives a list of final states, the empty sequence's being its
; init; the same map zipped with a tensor of per-sequence inits; a scan
; with the list as its sequence (an element per step, its outputs
; tensors); a fold over the list counting elements (i64, exact); two
; lists zipped; a captured list. One sequence holds 1e300 (tanh
; saturates; the sums stay finite).
(program seqs_map_loops
  (input L (list (list (f64 4))))
  (input Wx (f64 3 4))
  (input Wh (f64 3 3))
  (input b (f64 3))
  (input H0 (f64 5 3))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot Wx x) (dot Wh h)) b))) (zeros (f64 3)) s)) L))
  (let hr (map (fn (s) (foldr (fn (h x) (tanh (add (dot Wx x) (dot Wh h)))) b s)) L))
  (let hz (map (fn (s h0) (foldl (fn (h x) (tanh (add (dot Wx x) (dot Wh h)))) h0 s)) L H0))
  (let acc (scan (sequences L) (outputs_info (sitsot (zeros (f64 4))))
    (fn (s a) (add a (sum (stack s) 0)))))
  (let count (foldl (fn (n s) (add n (len s))) 0 L))
  (let pairs (map (fn (a c) (mul (len a) (len c))) L L))
  (let cap (map (fn (s) (mul (len s) (len (index L 3)))) L))
  (output hs hr hz acc count pairs cap (sum (stack hs))))
