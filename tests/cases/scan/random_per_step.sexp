; A key threaded through a loop as a state (split into the next key and a
; draw's key each step) and a per-step key folded in from the step index
; (which the vectorizer batches after the loop: the same draws); checked
; against tests/numpy_cases.py's Philox4x32-10.
; dims: T=6
(program random_per_step
  (input X (f64 T 3))
  (let K (key 7))
  (let (S KS) (scan
    (outputs_info (sitsot (zeros (f64 3))) (sitsot K))
    (n_steps T)
    (fn (s k)
      (let two (split k 2))
      (outputs (add s (normal (index two 1) (f64 3))) (index two 0)))))
  (let Y (scan
    (sequences X (arange T))
    (non_sequences K)
    (fn (x t k)
      (add x (uniform (fold_in k t) (f64 3))))))
  (output S KS Y))
