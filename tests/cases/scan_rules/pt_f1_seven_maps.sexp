; Ports test_trace's step-reduction test (F1, idx 3, jdx 15): seven maps
; x_k = u_t + k over 20 steps read at x1[:2], x2[4], x3[3], x5[-10],
; x6[-15]; eqscan needs no step trimming: every output is a whole-sequence
; op, no loop.
; scans_after: 0
; fires: scan-push-out-seq
(program pt_f1_seven_maps
  (input u (f64 20))
  (let (X1 X2 X3 X4 X5 X6 X7) (scan
    (sequences u)
    (outputs_info (nitsot) (nitsot) (nitsot) (nitsot) (nitsot) (nitsot) (nitsot))
    (fn (x) (outputs (add x 1.0) (add x 2.0) (add x 3.0) (add x 4.0) (add x 5.0) (add x 6.0) (add x 7.0)))))
  (output (slice X1 none 2) (index X2 4) (index X3 3) (index X5 -10) (index X6 -15)))
