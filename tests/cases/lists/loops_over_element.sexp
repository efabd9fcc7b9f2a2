; A loop over one element of a list of sequences (depth 2, lengths
; 2, 0, 3): the RNN-style fold over sequence 2, and a map over the
; flattened list.
; gen: L=2,0,3
(program loops_over_element
  (input L (list (list (f64 2))))
  (input U (f64 2 2))
  (let h (foldl (fn (acc x) (tanh (add (dot U acc) x))) (zeros (f64 2)) (index L 2)))
  (output h (map (fn (x) (sum (mul x x))) (flatten L))))
