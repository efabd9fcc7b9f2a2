; go_backwards over X (6 rows) with an unused sequence of 4 rows that sets
; the step count: dropping it must keep 4 steps (reading X[5], ..., X[2]).
; scans_after: 1
; parts_after: seqs=1
; fires: scan-tidy-inputs
(program neg_tidy_backwards_unused_seq
  (input X (f64 6 2))
  (input Y (f64 4))
  (let S (scan (sequences X Y) (outputs_info (sitsot (zeros (f64 2)))) (go_backwards)
    (fn (x y s) (tanh (add (mul s 0.5) x)))))
  (output S))
