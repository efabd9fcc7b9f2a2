; A sequence read at taps (-1 0) gives a loop of T-1 steps and a slice
; [0:-1] a length of T-1. At T = 0 NumPy's lengths are 0, but the
; optimizer reasons with the symbolic size T-1 ((T-1)+1 = T, which is
; false at T = 0): such sizes are refused, in both modes, at the node.
; args: run --gen --dim T=0
(program p
  (input r (f64 T))
  (let S (scan (sequences (r (taps -1 0))) (outputs_info (sitsot 0.0)) (fn (a b s) (add s (mul a b)))))
  (output (concat 0 (slice r 0 -1) (zeros (f64 1))) S))
