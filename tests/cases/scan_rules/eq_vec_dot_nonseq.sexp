; dot of a step with a non-sequence moved out: vector . vector,
; vector . matrix, matrix . vector with the non-sequence on the left.
; dims: T=4 N=3 M=5 K=2
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_dot_nonseq
  (input X (f64 T M))
  (input A (f64 T N M))
  (input w (f64 M))
  (input Wm (f64 M K))
  (input Wk (f64 K M))
  (let (O0 O1 O2) (scan
    (sequences X A)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (non_sequences w Wm Wk)
    (fn (x a ww wm wk) (outputs
      (dot x ww)
      (dot x wm)
      (dot wk x)))))
  (output O0 O1 O2))
