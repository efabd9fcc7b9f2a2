; scan-merge-outputs: a_t = tanh(a_{t-1} + x_t) and b_t = tanh(a_{t-1} + x_t)
; (b reads a's previous value) have the same step term, so B equals A.
; dims: T=6 N=3
; known_bug: the unread duplicate state stays in the loop: scan-drop-output makes the smaller loop, but an output costs nothing to write in the cost model, so it is not cheaper
; scans_after: 1
; parts_after: sitsots=1
; fires: scan-merge-outputs
(program eq_merge_outputs_states
  (input X (f64 T N))
  (input a0 (f64 N))
  (input b0 (f64 N))
  (let (A B) (scan (sequences X) (outputs_info (sitsot a0) (sitsot b0))
    (fn (x a b) (outputs (tanh (add a x)) (tanh (add a x))))))
  (output A B))
