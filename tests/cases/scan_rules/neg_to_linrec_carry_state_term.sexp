; Not linear: the term added before the product reads the state
; (c_t = a (c_{t-1} + c_{t-1}^2 u_t)): the loop stays, with its second
; output.
; dims: T=5
; scale: U=0.1
; scans_after: 1
; not_fires: scan-to-linrec
(program neg_to_linrec_carry_state_term
  (input U (f64 T))
  (input b (f64))
  (let a (mul 0.5 (sigmoid b)))
  (let (C G) (scan
    (sequences U)
    (outputs_info (sitsot (fill (f64) 0.3)) (nitsot))
    (non_sequences a)
    (fn (u c aa)
      (let g (add c (mul (mul c c) u)))
      (outputs (mul aa g) g))))
  (output C G))
