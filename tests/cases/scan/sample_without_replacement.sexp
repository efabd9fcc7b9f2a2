; Sampling without replacement by the Gumbel-top-k trick, as users write
; it with argmax and set_subtensor: each step picks the largest remaining
; perturbed score (scores + noise row g_t), emits its index, and writes
; -inf over it in the carried scores (set_index on the state: the plan
; may update it in place). The picked indices never repeat.
; dims: K=5 N=7
(program sample_without_replacement
  (input s (f64 N))
  (input G (f64 K N))
  (let (S I) (scan (sequences G) (outputs_info (sitsot s) (nitsot))
    (fn (g cur)
      (let i (argmax (add cur g)))
      (outputs (set_index cur -inf i) i))))
  (output S I (take s I)))
