; The folds: foldl and scanl from the front, foldr and scanr from the end,
; each acc -> tanh(0.8 acc + x_t), from init a; L mixes all four.
; wrt: x a
; dims: T=5
(program loop_folds
  (input x (f64 T))
  (input a (f64))
  (let fl (foldl (fn (acc v) (tanh (add (mul 0.8 acc) v))) a x))
  (let sl (scanl (fn (acc v) (tanh (add (mul 0.8 acc) v))) a x))
  (let fr (foldr (fn (acc v) (tanh (add (mul 0.8 acc) v))) a x))
  (let sr (scanr (fn (acc v) (tanh (add (mul 0.8 acc) v))) a x))
  (let L (add (add fl (mul 2.0 fr)) (sum (mul (add sl 1.0) (sub sr 0.5)))))
  (let (gx ga) (grad L x a))
  (output L gx ga))
