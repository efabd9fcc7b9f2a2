; concat (positive and negative axes) and stack of two steps moved out.
; dims: T=4
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_concat_stack
  (input X (f64 T 2 3))
  (input Y (f64 T 2 3))
  (input w (f64 2 3))
  (let (O0 O1 O2) (scan
    (sequences X Y)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (non_sequences w)
    (fn (x y ww) (outputs
      (mul (concat 0 x y) 2.0)
      (mul (concat -1 x y) 2.0)
      (mul (stack x y) 2.0)))))
  (output O0 O1 O2))
