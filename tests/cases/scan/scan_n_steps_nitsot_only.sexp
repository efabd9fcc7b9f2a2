; no sequences and no state: a nitsot computed from a non-sequence, 4 times.
; dims: N=3
(program scan_n_steps_nitsot_only
  (input w (f64 N))
  (let Y (scan
    (non_sequences w)
    (n_steps 4)
    (fn (ww) (mul ww 2.0))))
  (output Y))
