; Ports test_io's dependency-chain test (A8, case 2): the same chain with
; bs and cs read: the three states stay and the unread nit-sot d goes.
; scans_after: 1
; parts_after: sitsots=3 nitsots=0
; fires: scan-drop-output
(program pt_a8b_dependency_chain_middle
  (input a0 (f64))
  (input b0 (f64))
  (input c0 (f64))
  (let (A B C D) (scan
    (outputs_info (sitsot a0) (sitsot b0) (sitsot c0) (nitsot))
    (n_steps 6)
    (fn (a b c) (outputs (mul 0.7 a) (mul 0.5 a) (mul 0.5 b) (add c 1.0)))))
  (output B C))
