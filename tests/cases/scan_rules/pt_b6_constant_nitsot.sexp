; Ports test_push_out's pushout_seqs2 (B6): x_t = x_{t-1} * x_{t-1} (a
; matrix) beside a nit-sot that is the constant 0; optimizing must not fail.
; scans_after: 1
(program pt_b6_constant_nitsot
  (input x0 (f64 2 2))
  (let (X Z) (scan
    (outputs_info (sitsot x0) (nitsot))
    (n_steps 2)
    (fn (x) (outputs (mul x x) (zeros (f64 2))))))
  (output X Z))
