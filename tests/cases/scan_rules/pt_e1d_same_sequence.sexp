; Ports test_merge's basic test, case (d): the same recurrence twice over
; the same sequence is one loop (the two are one e-class; no merge needed).
; dims: T=5
; scans_after: 1
(program pt_e1d_same_sequence
  (input x (f64 T))
  (let A (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let B (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (t b) (tanh (add (mul b 0.5) t)))))
  (output A B (add A B)))
