; The gradient through filter and filterall (SPEC §1 "Filtering"): each
; kept row's (element's) cotangent goes back to its row (element), zeros
; in the rows left out. L = sum(F * F * Y') + sum(exp(E)) with F the rows
; of X whose sum exceeds 0.1 (4 of 7 rows; the nearest row sum is 0.42
; from the threshold) and E the elements of X below 0.1 (11 of 21; the
; nearest is 0.0097 away, far beyond a finite difference's step), checked
; against finite differences; the second gradient, of sum(dL/dX * V),
; goes through uncompress's own gradient (compress).
; wrt: X
; dims: T=7
(program filter_rows
  (input X (f64 T 3))
  (input V (f64 T 3))
  (let F (filter (fn (r) (gt (sum r) 0.1)) X))
  (let E (filterall (fn (e) (lt e 0.1)) X))
  (let L (add (sum (mul (mul F F) (add (sum F 0) 1.0))) (sum (exp E))))
  (let gX (grad L X))
  (output L gX (grad (sum (mul gX V)) X)))
