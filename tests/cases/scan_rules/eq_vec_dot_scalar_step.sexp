; dot with a 0-d step (a product) and a dynamic index by a size
; expression, moved out.
; dims: T=4 N=3
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_dot_scalar_step
  (input x (f64 T))
  (input Y (f64 T N))
  (input w (f64 N))
  (let (O0 O1) (scan (sequences x Y) (outputs_info (nitsot) (nitsot)) (non_sequences w)
    (fn (xt y ww) (outputs (dot xt ww) (mul (index y (sub N 1)) 2.0)))))
  (output O0 O1))
