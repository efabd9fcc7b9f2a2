; Extreme magnitudes: W scaled by 1e300 and by 1e-300 in two invariant
; outputs of symbolic shape N-1 over T-1 steps: each value is computed once
; and copied, so every finite value stays finite and tiny ones keep their
; digits.
; dims: T=5 N=4
; scale: W=1e300 V=1e-300
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_invariant_symbolic_extreme
  (input X (f64 T 2))
  (input W (f64 N 2))
  (input V (f64 N 2))
  (let (A B) (scan (sequences (X (taps -1 0))) (non_sequences W V)
    (fn (a b w v)
      (outputs (mul (slice w 1 none 1) 1.5) (mul (slice v 1 none 1) 1e10)))))
  (output A B))
