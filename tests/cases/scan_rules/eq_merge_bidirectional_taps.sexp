; A forward loop reading X at taps 0 1 and a go_backwards one reading it at
; taps -1 0 (both T-1 steps; the backward step t reads X[T-2-t] and
; X[T-1-t]): merged, the backward half reads X reversed at taps 1 0.
; dims: T=7 D=2
; scans_after: 1
; fires: scan-merge
(program eq_merge_bidirectional_taps
  (input X (f64 T D))
  (input a0 (f64 D))
  (let A (scan (sequences (X (taps 0 1))) (outputs_info (sitsot a0))
    (fn (x0 x1 a) (tanh (add (mul a x1) x0)))))
  (let B (scan (sequences (X (taps -1 0))) (outputs_info (sitsot a0))
    (go_backwards)
    (fn (xm x0 b) (sin (sub (mul b xm) x0)))))
  (output A B))
