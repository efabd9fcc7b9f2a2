; matmul with a vector step: (matmul W x_t) and (matmul a_t x_t) are
; matrix-vector products per step; moved out they must stay so.
; dims: T=4 N=3 M=2 K=5
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_matmul_vector
  (input X (f64 T M))
  (input A (f64 T N M))
  (input W (f64 K M))
  (let (O0 O1 O2) (scan (sequences X A) (outputs_info (nitsot) (nitsot) (nitsot)) (non_sequences W)
    (fn (x a w) (outputs (matmul w x) (matmul a x) (matmul x (transpose w))))))
  (output O0 O1 O2))
