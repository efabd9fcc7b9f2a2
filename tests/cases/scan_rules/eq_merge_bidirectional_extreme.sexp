; Extreme magnitudes: X scaled by 1e300. A forward and a go_backwards loop
; whose states scale X down by 1e-300 merge; the merged loop does the same
; arithmetic in the same order, so every finite value stays finite.
; dims: T=5 D=2
; scale: X=1e300
; scans_after: 1
; fires: scan-merge
(program eq_merge_bidirectional_extreme
  (input X (f64 T D))
  (input a0 (f64 D))
  (let A (scan (sequences X) (outputs_info (sitsot a0))
    (fn (x a) (tanh (add (mul 0.5 a) (mul x 1e-300))))))
  (let B (scan (sequences X) (outputs_info (sitsot a0)) (go_backwards)
    (fn (x b) (sin (sub (mul 0.25 b) (mul x 1e-300))))))
  (output A B))
