; linrec with broadcast operands: a scalar factor (summed over every step
; and element), a column of per-step factors, H0 a scalar; the cost reads
; the last row only, as a sampler's log-likelihood of a final state would.
; wrt: a c h u
(program op_linrec_bcast
  (input C (f64 3))
  (input a (f64))
  (input c (f64 6 1))
  (input h (f64))
  (input u (f64 6 3))
  (let H1 (linrec (mul 0.5 (tanh a)) u h))
  (let H2 (linrec c H1 h))
  (let L (add (sum (mul C (index H2 -1))) (sum (mul H1 H1))))
  (let (ga gc gh gu) (grad L a c h u))
  (output L ga gc gh gu))
