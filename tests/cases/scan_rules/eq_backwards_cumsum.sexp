; A running sum and product going backwards, read at every step: cumsum /
; cumprod of the reversed sequence.
; dims: T=6 N=2
; scans_after: 0
; fires: scan-to-cumulative
(program eq_backwards_cumsum
  (input X (f64 T N))
  (input s0 (f64 N))
  (let (S P) (scan (sequences X) (outputs_info (sitsot s0) (sitsot s0)) (go_backwards)
    (fn (x s p) (outputs (add s x) (mul p (add x 1.0))))))
  (output S P))
