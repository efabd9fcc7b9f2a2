; A map over a sequence read at taps -1 0 (T-1 steps) whose output is
; loop-invariant: T-1 cannot be written as a type's size either, so the
; steps come from the sequence's rows as the loop reads them (X[0:-1],
; made zeros and compared with itself: a true per step, no element read)
; and the value is copied once per step by where; the loop disappears.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_invariant_symbolic_steps
  (input X (f64 T 3))
  (input W (f64 N 2))
  (let O (scan (sequences (X (taps -1 0))) (non_sequences W)
    (fn (a b w) (exp w))))
  (output O))
