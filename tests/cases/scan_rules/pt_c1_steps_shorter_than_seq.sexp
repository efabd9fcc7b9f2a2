; Adapts test_push_out's nit-sot-size test (C1): out_t = 2 s_t over a
; sequence of 10 with n_steps 3; the loop becomes 2 * s[:3] (the buffer of
; a different size has no counterpart in eqscan).
; scans_after: 0
; fires: scan-push-out-seq
(program pt_c1_steps_shorter_than_seq
  (input s (f64 10))
  (let O (scan
    (sequences s)
    (n_steps 3)
    (fn (x) (mul 2.0 x))))
  (output O))
