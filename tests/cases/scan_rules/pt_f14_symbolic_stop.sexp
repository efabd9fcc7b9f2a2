; Ports test_trace's symbolic-stop test (F14): w_t = 2 x_{t-1} with
; x_t = x_{t-1} + 1 from 0 over 10 steps, read at ws[3:k] for k = 5, 8, 10
; (eqscan's slice bounds are integers).
; scans_after: 1
(program pt_f14_symbolic_stop
  (let (X W) (scan (outputs_info (sitsot 0.0) (nitsot)) (n_steps 10)
    (fn (x) (outputs (add x 1.0) (mul 2.0 x)))))
  (output (slice W 3 5) (slice W 3 8) (slice W 3 10)))
