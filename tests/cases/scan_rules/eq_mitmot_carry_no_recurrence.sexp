; A forward mitmot (in taps 0 1, out tap 1) whose out tap does not read
; slot 0, on a tape with one slot beyond the steps (T + 2 slots over T
; steps): as a carry it is a map of the tape's rows 1..T and X, so the
; whole tape is row 0, those T rows, and the untouched last row; no loop
; is left. The second output reads slot 1 (the tape's own row t + 1).
; dims: T=5 N=2
; scans_after: 0
; fires: scan-mitmot-to-carry
(program eq_mitmot_carry_no_recurrence
  (input X (f64 T N))
  (input G (f64 T N))
  (input last (f64 2 N))
  (let tape (concat 0 G last))
  (let (Tp D) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (fn (x g0 g1) (outputs (add g1 (mul x 2.0)) (mul g1 x)))))
  (output Tp D))
