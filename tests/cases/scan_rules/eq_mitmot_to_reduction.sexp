; A sitsot accumulator of a sequence after a mitmot with two out taps: its
; body result is the loop's fourth, not its second; scan-to-reduction
; takes the right one and turns it into a sum, the mitmot stays.
; dims: T=5 N=2
; scans_after: 1
; parts_after: mitmots=1 sitsots=0
; fires: scan-to-reduction
(program eq_mitmot_to_reduction
  (input X (f64 T N))
  (input G (f64 T N))
  (input s0 (f64 N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let (R S) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)) (sitsot s0))
    (fn (x g0 g1 g2 s)
      (outputs (add g1 (mul x g0)) (sub g2 g0) (add s (mul x x))))))
  (output R (index S -1)))
