; A map whose output is loop-invariant and of symbolic shape N-1 (a slice
; of a non-sequence): no type can write N-1, so the value, computed once,
; is broadcast against zeros of shape (T, 1, 1) instead of zeros of its
; own type; the loop disappears.
; dims: T=5 N=4
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_invariant_symbolic_shape
  (input X (f64 T 3))
  (input W (f64 N 2))
  (let O (scan (sequences X) (non_sequences W)
    (fn (x w) (exp (slice w 1 none 1)))))
  (output O))
