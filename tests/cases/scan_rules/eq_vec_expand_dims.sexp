; expand_dims of a step moved out, at the step's last and first axis.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_expand_dims
  (input X (f64 T N M))
  (let (O0 O1) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot))
    (fn (x) (outputs
      (mul (expand_dims x -1) 2.0)
      (mul (expand_dims x 0) 2.0)))))
  (output O0 O1))
