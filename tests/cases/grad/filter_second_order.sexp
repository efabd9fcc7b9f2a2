; Second order through filter and filterall: N = sum(dL/dX * V) for the
; L of filter_rows.sexp (the same data and margins from the predicates'
; thresholds), and dN/dX against finite differences of N: the backward
; pass's uncompress differentiated in turn (its gradient is compress).
; wrt: X
; dims: T=7
(program filter_second_order
  (input X (f64 T 3))
  (input V (f64 T 3))
  (let F (filter (fn (r) (gt (sum r) 0.1)) X))
  (let E (filterall (fn (e) (lt e 0.1)) X))
  (let L (add (sum (mul (mul F F) (add (sum F 0) 1.0))) (sum (exp E))))
  (let N (sum (mul (grad L X) V)))
  (output N (grad N X)))
