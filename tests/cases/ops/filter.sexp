; filter and filterall (SPEC §1 "Filtering"), against NumPy's boolean
; indexing: the rows of a matrix whose sum is positive (X[X.sum(1) > 0]),
; the elements of a matrix below a threshold, row-major (X[X < 0.1]),
; rows of an i64 matrix and of a bool vector, a predicate reading a
; captured value (a threshold input), a filter that keeps nothing (0
; rows, the row shape kept) and one that keeps everything, a filter of a
; filter, the sums of filtered rows (which the optimizer computes as
; masked sums, never building the rows), and a predicate true for NaN
; rows (NaN > 0 is false, so the NaN row of W is left out).
; dims: T=7
(program filter
  (input X (f64 T 3))
  (input K (i64 T 2))
  (input B (bool T))
  (input c (f64))
  (input W (f64 4 2))
  (let Wn (concat 0 W (fill (f64 1 2) nan)))
  (output
    (filter (fn (r) (gt (sum r) 0.0)) X)
    (filterall (fn (e) (lt e 0.1)) X)
    (filter (fn (r) (ge (index r 0) 0)) K)
    (filter (fn (b) b) B)
    (filter (fn (r) (gt (index r 1) c)) X)
    (filter (fn (r) (gt (index r 0) 100.0)) X)
    (filter (fn (r) (lt (index r 0) 100.0)) X)
    (filter (fn (r) (lt (index r 2) 0.3)) (filter (fn (r) (gt (sum r) 0.0)) X))
    (sum (filter (fn (r) (gt (sum r) 0.0)) X) 0)
    (sum (filterall (fn (e) (lt e 0.1)) X))
    (filter (fn (r) (gt (index r 0) 0.0)) Wn)))
