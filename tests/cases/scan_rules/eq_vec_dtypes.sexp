; Weak literals keep the sequence's dtype when moved out: f32 stays f32,
; i64 stays i64, bool through where.
; dims: T=5 N=3
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_dtypes
  (input X (f32 T N))
  (input K (i64 T N))
  (input B (bool T N))
  (let (P Q R) (scan
    (sequences X K B)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (fn (x k b) (outputs (add (mul x 2.0) 1.0) (add (mul k 3) 1) (where b k 0)))))
  (output P Q R))
