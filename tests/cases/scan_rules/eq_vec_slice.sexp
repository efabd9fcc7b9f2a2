; Slicing a step moved out: a start bound and a reversal of the step's
; first axis.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_slice
  (input X (f64 T N M))
  (let (O0 O1) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot))
    (fn (x) (outputs
      (mul (slice x 1 none) 2.0)
      (mul (slice x none none -1) 2.0)))))
  (output O0 O1))
