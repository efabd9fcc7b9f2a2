; eq_accumulator_last_row at tiny magnitudes (subnormal products). A
; weight-gradient-like accumulator and a state read at their last step
; as PyTensor's traces are converted: the initial row, then the loop's
; rows, indexed at -1. With a literal step count (at least one step) the
; last row is the loop's last row (index-concat-last), so only the last
; step of each output is kept (scan-save-mem) and no trace is stored or
; concatenated.
; scale: X=1e-300 W=1e-10 h0=1e-300
; scans_after: 1
; fires: index-concat-last scan-save-mem
(program eq_accumulator_last_row_tiny
  (input X (f64 6 4 3))
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
