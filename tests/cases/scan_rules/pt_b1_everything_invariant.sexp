; Ports test_push_out's everything-invariant test (B1): out_t =
; dot(h0, W1 + W2) with only non-sequences; no loop remains, the result is
; 5 equal rows.
; scans_after: 0
; fires: scan-push-out-nonseq
(program pt_b1_everything_invariant
  (input h0 (f64 2))
  (input W1 (f64 2 2))
  (input W2 (f64 2 2))
  (let O (scan
    (non_sequences h0 W1 W2)
    (n_steps 5)
    (fn (h w1 w2) (dot h (add w1 w2)))))
  (output O))
