; The carry a backward loop builds: c_t = (u_t + c_{t-1}) * a, with a
; second output reading the state (the total cotangent u_t + c_{t-1}),
; going backwards. The state is the retimed recurrence
; g_t = a g_{t-1} + u_t times a, bit for bit the loop's; the loop is
; rebuilt with the state's previous values as a sequence, and push-out-seq
; takes what is left apart: no loop.
; dims: T=7
; scans_after: 0
; fires: scan-to-linrec
(program eq_to_linrec_carry
  (input U (f64 T))
  (input b (f64))
  (let a (mul 0.6 (sigmoid b)))
  (let (C G) (scan
    (sequences U)
    (outputs_info (sitsot (fill (f64) 0.0)) (nitsot))
    (non_sequences a)
    (go_backwards)
    (fn (u c aa)
      (let g (add u c))
      (outputs (mul g aa) g))))
  (output C G (sum G 0) (index C -1)))
