; Ports test_push_out's pushout_nonseq (B7): the constant 2 as a
; non-sequence, nit-sots x*x and x over 2 steps: [[4,4],[2,2]]-like rows
; (here a vector constant). As in PyTensor, a loop output that is a bare
; non-sequence is not replaced. eqscan folds both outputs to constants
; (fills of 4.0 and 2.0) in one loop: by its cost model, a fill of 2
; elements a step is cheaper than the mul after the loop.
; scans_after: 1
(program pt_b7_partial_replacement
  (let c (fill (f64 2) 2.0))
  (let (A B) (scan
    (outputs_info (nitsot) (nitsot))
    (non_sequences c)
    (n_steps 2)
    (fn (x) (outputs (mul x x) x))))
  (output A B))
