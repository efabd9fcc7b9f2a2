; Ports test_push_out's invariant sub-expression test (B2):
; h_t = dot(h_{t-1}, W1 + W2); the loop stays, W1 + W2 is computed once
; and passed in as its one non-sequence.
; scans_after: 1
; parts_after: sitsots=1 nonseqs=1
; fires: scan-push-out-nonseq
(program pt_b2_invariant_subexpr
  (input h0 (f64 2))
  (input W1 (f64 2 2))
  (input W2 (f64 2 2))
  (let H (scan
    (outputs_info (sitsot h0))
    (non_sequences W1 W2)
    (n_steps 5)
    (fn (h w1 w2) (dot h (add w1 w2)))))
  (output H))
