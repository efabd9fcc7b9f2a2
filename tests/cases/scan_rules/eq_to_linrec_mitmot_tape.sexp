; A gradient's tape whose slot update is linear (g1 + x * g0) and a
; second output reading the slot (dot v g0): the tape becomes a carry
; (scan-mitmot-to-carry), the carry a linrec, and the loop is rebuilt
; with the carry's previous values as a sequence, which push-out-seq takes
; apart: no loop is left.
; dims: T=5 N=3
; scans_after: 0
; fires: scan-mitmot-to-carry scan-to-linrec scan-push-out-seq
(program eq_to_linrec_mitmot_tape
  (input X (f64 T N))
  (input G (f64 T N))
  (input V (f64 N N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (non_sequences V)
    (fn (x g0 g1 v) (outputs (add g1 (mul x g0)) (dot v g0)))))
  (output R Y))
