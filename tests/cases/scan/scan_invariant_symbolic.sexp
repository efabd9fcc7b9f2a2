; Loop-invariant outputs of a map over T-1 steps (X read at taps -1 0), of
; symbolic shape N-1 and of dtypes f64, i64 and bool: each is its value
; repeated T-1 times. Optimized (scan-push-out-nonseq), the value is
; computed once and copied per step, the steps taken from X's rows.
; dims: T=6 N=4
(program scan_invariant_symbolic
  (input X (f64 T 3))
  (input W (f64 N 2))
  (input K (i64 N))
  (let (A B C) (scan (sequences (X (taps -1 0))) (non_sequences W K)
    (fn (a b w k)
      (outputs (exp (slice w 1 none 1)) (mul k 3) (gt (slice w 1 none 1) 0.0)))))
  (output A B C))
