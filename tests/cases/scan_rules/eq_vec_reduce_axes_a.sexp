; Reductions of a step moved out: their axes shift by one past the time
; axis; negative axes stay counted from the end.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_reduce_axes_a
  (input X (f64 T N M))
  (let (O0 O1 O2) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (fn (x) (outputs
      (sum x -1)
      (max x 0)
      (mean x)))))
  (output O0 O1 O2))
