; scan-sum-into-loop: sum(H ⊙ Y) over a recurrence's trace H is summed
; step by step in the loop (Y becomes a sequence), which then keeps only
; its last state: under a memory budget of 400 bytes the trace (20 × 4
; f64 values, 640 bytes) is not stored. Outputs as written.
; dims: T=20 N=4
; scale: W=0.25
; memory_budget: 400
; fires: scan-sum-into-loop
; scans_after: 1
; parts_after: seqs=2 sitsots=1 nitsots=1
(program loss
  (input W (f64 N N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (input Y (f64 T N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W)
    (fn (x_t h_prev w)
      (tanh (add (dot w h_prev) x_t)))))
  (output (sum (mul H Y))))
