; Folds over sequences with no element give their init (issue 41's
; defect: they failed with "index -1 out of range"): foldl, foldr and
; reduce over an empty list, over the empty element of a list of
; sequences, over a (0, 3) tensor and over a filter that keeps no row;
; the same folds over non-empty lists still give their last state. Inits
; at the ends of the f64 range pass through unchanged.
(program fold_empty
  (input E (list (f64 3)))
  (input S (list (list (f64 3))))
  (input Z (f64 0 3))
  (input H (f64 3))
  (let big (tensor (f64 3) 1e308 -0.0 5e-324))
  (let f (foldl (fn (acc x) (add (mul acc 0.5) x)) big E))
  (let r (reduce (fn (acc x) (add acc x)) H E))
  (let b (foldr (fn (acc x) (tanh (add acc x))) H (index S 1)))
  (let n (foldl (fn (acc x) (tanh (add acc x))) H (index S 0)))
  (let z (foldr (fn (acc x) (add acc x)) big Z))
  (let k (foldl (fn (acc x) (add acc x)) H
    (filter (fn (x) (gt (sum x) 1e300)) (stack (index S 0)))))
  (let i (foldl (fn (acc x) (add acc (cast i64 (sum x)))) 7 (index S 1)))
  (output f r b n z k i))
