; Invariant outputs of dtypes bool, i64 and f64 (a weak literal), T-1 steps
; over a sequence read at taps -1 0 and a symbolic N-1 shape: each is its
; value repeated, in its own dtype, and the loop disappears.
; dims: T=5 N=4
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_invariant_symbolic_steps_dtypes
  (input X (f64 T 2))
  (input W (f64 N 2))
  (input K (i64 N))
  (let (A B C) (scan (sequences (X (taps -1 0))) (non_sequences W K)
    (fn (a b w k)
      (outputs (gt (slice w 1 none 1) 0.0) (mul k 3) (sum (mul w w))))))
  (output A B C))
