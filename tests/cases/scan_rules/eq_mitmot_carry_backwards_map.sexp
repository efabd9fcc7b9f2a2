; A backward mitmot (in taps 0 1, out tap 1) whose write does not read
; slot 0, on a tape with one slot beyond the steps (T + 2 slots over T
; steps): as a carry, its sequence is the tape's rows 1..T reversed (a
; loop going backwards reverses each sequence from its own end), and the
; whole tape is row 0, the carry's steps, and the untouched last row. The
; map leaves the loop (scan-push-out-seq); no loop is left.
; dims: T=5 N=2
; cost_dims: T=1000 N=2
; scans_after: 0
; fires: scan-mitmot-to-carry scan-push-out-seq
(program eq_mitmot_carry_backwards_map
  (input X (f64 T N))
  (input G (f64 T N))
  (input last (f64 2 N))
  (let tape (concat 0 G last))
  (let (Tp D) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (go_backwards)
    (fn (x g0 g1) (outputs (add g1 (mul x 2.0)) (mul g1 x)))))
  (output Tp D))
