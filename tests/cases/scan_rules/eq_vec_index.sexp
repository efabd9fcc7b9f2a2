; Indexing a step moved out: a negative index of the step's first axis
; and two indices.
; dims: T=4 N=3 M=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_index
  (input X (f64 T N M))
  (let (O0 O1) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot))
    (fn (x) (outputs
      (mul (index x -1) 2.0)
      (mul (index x 0 2) 2.0)))))
  (output O0 O1))
