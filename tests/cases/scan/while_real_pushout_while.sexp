; PyTensor's test_pushout_while (tests/scan/test_rewriting.py, issue 37):
; the push-out rewrites must leave a while loop's result alone. Sequences
; step_indices = arange(5) (as f64) and the rows of W1, non-sequence W2,
; n_steps 5; each step is w1_t . W2 (for a plain loop, one matrix product
; W1 . W2 outside), until step_idx > 2: 4 of the 5 steps run, so O is
; (W1 . W2)[0:4], never all 5 rows.
; dims: N=5
(program while_real_pushout_while
  (input W1 (f64 N N))
  (input W2 (f64 N N))
  (let step_indices (cast f64 (arange 5)))
  (let O (scan
    (sequences step_indices W1)
    (non_sequences W2)
    (n_steps 5)
    (fn (step_idx w1 w2) (outputs (dot w1 w2) (until (gt step_idx 2.0))))))
  (output O))
