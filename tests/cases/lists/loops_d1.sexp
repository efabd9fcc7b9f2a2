; Loops over a list of 5 vectors (depth 1): map (a list), reduce, foldl
; and foldr (tensors), scanl and scanr (lists; scanr's states line up
; with the elements), filter and filterall (whole elements kept), and a
; map to scalars (a list of scalars).
(program loops_d1
  (input L (list (f64 3)))
  (input W (f64 3 3))
  (let m (map (fn (x) (tanh (dot W x))) L))
  (let s (reduce (fn (acc x) (add acc x)) (zeros (f64 3)) L))
  (let fl (foldl (fn (acc x) (add (mul acc 0.5) x)) (zeros (f64 3)) L))
  (let fr (foldr (fn (acc x) (add (mul acc 0.5) x)) (zeros (f64 3)) L))
  (let sl (scanl (fn (acc x) (maximum acc x)) (zeros (f64 3)) L))
  (let sr (scanr (fn (acc x) (add acc x)) (zeros (f64 3)) L))
  (let f (filter (fn (x) (gt (sum x) 0.0)) L))
  (let fa (filterall (fn (x) (lt (max x) 0.2)) L))
  (output m s fl fr sl sr f fa (len f) (map (fn (x) (sum x)) L)))
