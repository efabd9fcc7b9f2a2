; Adapts test_push_out's while-loop test (B3) to a fixed loop: the stop
; condition idx_t > 2 becomes a "stopped" flag state (a running maximum
; read at every step) that masks out_t = dot(W1[t], W2) after the stop.
; dot(W1[t], W2) reads no state and moves out as one matrix product; the
; flag is no fold eqscan can turn into an op (no running maximum), so one
; loop stays.
; scans_after: 1
; fires: scan-push-out-seq
; not_fires: scan-to-cumulative
(program pt_b3_while_as_fixed_loop
  (input idx (f64 5))
  (input W1 (f64 5 5))
  (input W2 (f64 5 5))
  (let (STOP OUT) (scan
    (sequences idx W1)
    (outputs_info (sitsot 0.0) (nitsot))
    (non_sequences W2)
    (fn (i w1 stopped w2)
      (outputs
        (maximum stopped (cast f64 (gt i 0.2)))
        (where (gt stopped 0.5) 0.0 (dot w1 w2))))))
  (output OUT))
