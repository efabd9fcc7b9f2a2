; Transposes of a step moved out: the default (all axes reversed) and an
; explicit permutation keep the time axis first.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_transpose
  (input X (f64 T N M))
  (let (O0 O1) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot))
    (fn (x) (outputs
      (mul (transpose x) 2.0)
      (mul (transpose x 1 0) 3.0)))))
  (output O0 O1))
