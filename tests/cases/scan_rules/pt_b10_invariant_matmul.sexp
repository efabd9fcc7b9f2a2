; Ports test_push_out's test_opt_order (B10): out_t = dot(x, A) with both
; non-sequences over 2 steps: one matrix product outside, broadcast to 2
; rows.
; scans_after: 0
; fires: scan-push-out-nonseq
(program pt_b10_invariant_matmul
  (input x (f64 2 2))
  (input A (f64 2 2))
  (let O (scan
    (non_sequences x A)
    (n_steps 2)
    (fn (xx a) (dot xx a))))
  (output O))
