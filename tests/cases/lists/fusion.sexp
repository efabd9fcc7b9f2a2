; The seed's identities as optimize makes them on list programs (issue 41;
; src/optimize/list_identities.rs): a map of a map (depth 1, and over a
; list of sequences whose fn maps each one, depth 2), reduce and foldr
; (backwards) of a map, scanl of a map, forall of a forall at depth 3
; (empty lists at depths 2 and 3) and depth 2 (an empty sequence; values
; 1e300 and 5e-324 scaled by 1e-300), and a reduce of a map over an empty
; list (its init). Each optimized program must give the NumPy results the
; program as written gives; tests/list_identities.rs checks the loops
; were fused.
(program fusion
  (input V (list (f64 2)))
  (input L (list (list (f64 2))))
  (input M (list (list (list (f64 2)))))
  (input W (f64 2))
  (output
    (map (fn (x) (exp x)) (map (fn (x) (mul x W)) V))
    (reduce (fn (a x) (add a x)) W (map (fn (x) (tanh (mul x W))) V))
    (foldr (fn (a x) (add (mul a 0.5) x)) W (map (fn (x) (sin x)) V))
    (scanl (fn (a x) (add a x)) W (map (fn (x) (cos x)) V))
    (map (fn (s) (stack s)) (map (fn (s) (map (fn (x) (mul x W)) s)) L))
    (forall (fn (y) (tanh y)) (forall (fn (x) (mul x W)) M))
    (forall (fn (y) (sum y)) (forall (fn (x) (mul x 1e-300)) L))
    (reduce (fn (a x) (add a x)) W (map (fn (x) (mul x W)) (index L 1)))))
