; Folds over sequences that may be empty (issue 41): a foldl over the
; rows a filter keeps (some kept, and none kept) and a foldr over a
; (0, N) tensor. The empty folds give their init, so the gradient with
; respect to the init a is 1 through them; through the kept rows it is
; the loop's, and X's rows get theirs where kept.
; wrt: X a
; dims: T=5 N=2
(program loop_fold_maybe_empty
  (input X (f64 T N))
  (input Z (f64 0 N))
  (input a (f64 N))
  (let some (foldl (fn (acc x) (tanh (add (mul 0.8 acc) x))) a
    (filter (fn (x) (gt (sum x) 0.0)) X)))
  (let zero_kept (foldl (fn (acc x) (tanh (add acc x))) a
    (filter (fn (x) (gt (sum x) 1e300)) X)))
  (let empty (foldr (fn (acc x) (tanh (add acc x))) (mul a 3.0) Z))
  (let L (add (sum (mul some some)) (add (sum (mul zero_kept 2.0)) (sum (mul empty empty)))))
  (let (gX ga) (grad L X a))
  (output L gX ga))
