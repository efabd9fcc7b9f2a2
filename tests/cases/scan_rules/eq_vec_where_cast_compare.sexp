; where, casts and comparisons moved out, with bool and i64 results.
; dims: T=5 N=3
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_where_cast_compare
  (input X (f64 T N))
  (input w (f64 N))
  (let (A B C) (scan
    (sequences X)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (non_sequences w)
    (fn (x ww) (outputs
      (where (gt x 0.0) x (neg x))
      (cast i64 (mul x 10.0))
      (gt x ww)))))
  (let D (scan (sequences X) (non_sequences w) (fn (x ww) (where (le x ww) 1.0 ww))))
  (output A B C D))
