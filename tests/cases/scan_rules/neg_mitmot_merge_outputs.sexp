; A mitmot whose two out taps get the same term, followed by a nitsot of
; that term too: scan-merge-outputs compares body results, which here are
; tape writes, and refuses the loop; the values must match.
; dims: T=4 N=2
; scans_after: 1
; not_fires: scan-merge-outputs
(program neg_mitmot_merge_outputs
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)) (nitsot))
    (fn (x g0 g1 g2)
      (let v (add g0 x))
      (outputs v v v))))
  (output R Y))
