; Attention weights per step as users spell them: the max-shifted softmax
; over the last axis of a score matrix (keys x queries), written with max,
; expand_dims, exp, sum and div, becomes (softmax S -1); scores scaled up
; to where the unshifted form would overflow (the shift keeps both finite).
; dims: T=5 N=4
; scans_before: 1
; scale: X=300.0
; scans_after: 0
; fires: softmax-def
(program eq_softmax_spelled
  (input X (f64 T N))
  (input K (f64 N N))
  (let (P) (scan (sequences X) (outputs_info (nitsot)) (non_sequences K)
    (fn (x k)
      (let S (mul k (expand_dims x 0)))
      (let e (exp (sub S (expand_dims (max S -1) -1))))
      (outputs (div e (expand_dims (sum e -1) -1))))))
  (output P))
