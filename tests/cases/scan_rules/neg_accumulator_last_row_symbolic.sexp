; eq_accumulator_last_row with a symbolic step count T: T may be 0, and
; then the last row is the initial one, so the trace's last row is not
; the concatenation's (index-concat-last must not fire).
; dims: T=6
; scans_after: 1
; not_fires: index-concat-last
(program neg_accumulator_last_row_symbolic
  (input X (f64 T 4 3))
  (input W (f64 3 3))
  (input h0 (f64 4 3))
  (let A0 (zeros (f64 3 3)))
  (let (H A) (scan
    (sequences X)
    (outputs_info (sitsot h0) (sitsot A0))
    (non_sequences W)
    (fn (x h a w)
      (let hn (tanh (add x (dot h w))))
      (outputs hn (add a (dot (transpose h) hn))))))
  (output (index (concat 0 (expand_dims h0 0) H) -1) (index (concat 0 (expand_dims A0 0) A) -1)))
