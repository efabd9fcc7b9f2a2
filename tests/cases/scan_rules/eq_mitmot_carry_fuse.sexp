; neg_mitmot_fuse with a tape of in taps (0 1), out tap (1): as a carry
; (scan-mitmot-to-carry) the middle loop reads M per step and scan-fuse
; fuses it into M's loop; the last loop reads the whole tape (row 0, then
; the carry's steps) and stays.
; dims: T=5 N=2
; scans_after: 2
; fires: scan-mitmot-to-carry scan-fuse
(program eq_mitmot_carry_fuse
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let M (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (x h) (tanh (add h x)))))
  (let R (scan
    (sequences M)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (fn (m g0 g1) (add g1 (mul m g0)))))
  (let Z (scan
    (sequences R)
    (outputs_info (sitsot (zeros (f64 N))))
    (fn (r z) (sin (add z r)))))
  (output Z))
