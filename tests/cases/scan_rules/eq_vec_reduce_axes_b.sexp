; More reductions of a step moved out: prod over axis 1, min over axis -2,
; a full sum.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_reduce_axes_b
  (input X (f64 T N M))
  (let (O0 O1 O2) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (fn (x) (outputs
      (prod x 1)
      (min x -2)
      (sum x)))))
  (output O0 O1 O2))
