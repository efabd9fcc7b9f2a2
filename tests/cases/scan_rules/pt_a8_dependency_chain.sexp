; Ports test_io's dependency-chain test (A8, case 1): a_t = 0.7a,
; b_t = 0.5a, c_t = 0.5b, d_t = c + 1 (all reading previous values), only
; ds read: the whole chain of three states and the nit-sot stays.
; scans_after: 1
; parts_after: sitsots=3 nitsots=1
(program pt_a8_dependency_chain
  (input a0 (f64))
  (input b0 (f64))
  (input c0 (f64))
  (let (A B C D) (scan
    (outputs_info (sitsot a0) (sitsot b0) (sitsot c0) (nitsot))
    (n_steps 6)
    (fn (a b c) (outputs (mul 0.7 a) (mul 0.5 a) (mul 0.5 b) (add c 1.0)))))
  (output D))
