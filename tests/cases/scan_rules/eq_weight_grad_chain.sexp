; The backward loop of an RNN's weight gradient as PyTensor's gradient and
; the converter write it: a mitmot tape for dh, the weight gradient an
; accumulator acc + x_t^T delta_t read at its last step through the
; concatenation with its initial row, with a literal step count. The
; accumulator leaves the loop (scan-mitmot-to-carry,
; scan-accumulator-out): the loop stacks x_t^T delta_t and their sum
; after it is the accumulator's last row (index-concat-last, then the
; running sum's last row as a sum); the loop keeps only dh's last step.
; scans_after: 1
; fires: scan-mitmot-to-carry scan-accumulator-out index-concat-last
(program eq_weight_grad_chain
  (input X (f64 6 4 3))
  (input H (f64 6 4 3))
  (input U (f64 3 3))
  (input Gbar (f64 6 4 3))
  (let tape (concat 0 Gbar (zeros (f64 1 4 3))))
  (let A0 (zeros (f64 3 3)))
  (let (G DW) (scan
    (sequences X H)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (sitsot A0))
    (non_sequences U)
    (go_backwards)
    (fn (x h g g1 a u)
      (let delta (mul g (sub 1.0 (mul h h))))
      (outputs (add g1 (dot delta (transpose u))) (add a (dot (transpose x) delta))))))
  (output (index G -1) (index (concat 0 (expand_dims A0 0) DW) -1)))
