; Ports test_push_out's dot-input-is-a-nit-sot test (D5): a map over rows
; a_t returning (dot(a_t^2, b), a_t^2); both are whole-sequence ops, no loop.
; scans_after: 0
; fires: scan-push-out-seq
(program pt_d5_dot_input_nitsot
  (input a (f64 3 4))
  (input b (f64 4 5))
  (let (P Q) (scan
    (sequences a)
    (outputs_info (nitsot) (nitsot))
    (non_sequences b)
    (fn (at bb) (let sq (mul at at)) (outputs (dot sq bb) sq))))
  (output P Q))
