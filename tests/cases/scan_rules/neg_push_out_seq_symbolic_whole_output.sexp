; A map over N steps of a sequence of T rows (unrelated sizes): the map's
; output has N rows, and no literal slice cuts T rows to N, so the output
; cannot become the term on the whole sequence; the loop stays (it may
; read the term computed before it) and the values are those of the
; written loop.
; dims: T=6 N=4
; scans_after: 1
(program neg_push_out_seq_symbolic_whole_output
  (input X (f64 T 2))
  (let O (scan (sequences X) (n_steps N)
    (fn (x) (exp (mul x 2.0)))))
  (output O))
