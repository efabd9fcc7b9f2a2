; An invariant output of a loop with no sequence whose step count is an
; expression, (sub T 1): neither a type nor a sequence gives T-1 rows, so
; the output is not replaced by a repetition; the loop stays.
; dims: T=5
; scans_after: 1
(program neg_invariant_symbolic_no_sequence
  (input W (f64 T 3))
  (input s0 (f64 T 3))
  (let (S O) (scan (outputs_info (sitsot s0) (nitsot)) (non_sequences W)
    (n_steps (sub T 1))
    (fn (s w) (outputs (tanh (add s w)) (exp w)))))
  (output S O))
