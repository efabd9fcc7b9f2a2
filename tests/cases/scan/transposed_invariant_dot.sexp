; A loop reads transposed matrices as invariants: Wᵀ only through dot (a
; matrix-vector and a matrix-matrix product: the plan gives the body a
; row-major copy of it, made once per call), Vᵀ through dot and also
; elementwise (the body reads it as it is). Sizes past one block of the
; matrix-vector kernels' eight lanes and four rows.
; dims: T=6 N=13 M=9
; scale: W=0.25 V=0.25
(program transposed_invariant_dot
  (input W (f64 N N))
  (input V (f64 N M))
  (input X (f64 T M))
  (input h0 (f64 N))
  (let (H S P) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot) (nitsot))
    (non_sequences (transpose W) (transpose V))
    (fn (x h wt vt)
      (outputs
        (tanh (add (dot wt h) (dot x vt)))
        (sum (mul vt vt))
        (dot wt (expand_dims h 1))))))
  (output H S P))
