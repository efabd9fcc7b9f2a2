; An output of symbolic shape over T-1 steps that reads the state (not
; invariant): it stays in the loop.
; dims: T=5
; scans_after: 1
(program neg_invariant_symbolic_reads_state
  (input X (f64 T 2))
  (input s0 (f64 2))
  (let (S O) (scan (sequences (X (taps -1 0))) (outputs_info (sitsot s0) (nitsot))
    (fn (a b s) (outputs (tanh (add s (mul a b))) (exp s)))))
  (output S O))
