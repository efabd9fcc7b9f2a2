; Folds over a symbolic length bound to 3 at run time (issue 41): a foldl
; of a nonlinear state, a foldr and a running sum and maximum (which the
; optimizer makes whole-array ops). With no step each gives its init, so
; the gradient with respect to the init a is 1 through it and W and X get
; none; with steps it is the loop's.
; wrt: X a W
; dims: T=3 N=2
(program loop_fold_symbolic_T3
  (input X (f64 T N))
  (input a (f64 N))
  (input W (f64 N N))
  (let h (foldl (fn (acc x) (tanh (add (dot W acc) x))) a X))
  (let r (foldr (fn (acc x) (tanh (add (mul 0.7 acc) x))) (mul a 2.0) X))
  (let s (foldl (fn (acc x) (add acc (mul x x))) a X))
  (let m (reduce (fn (acc x) (maximum acc x)) (mul a 0.5) X))
  (let L (add (add (sum (mul h h)) (sum (mul r r))) (add (sum (mul s s)) (sum (mul m a)))))
  (let (gX ga gW) (grad L X a W))
  (output L gX ga gW))
