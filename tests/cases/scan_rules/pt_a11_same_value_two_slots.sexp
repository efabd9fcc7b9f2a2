; Ports test_io's same-variable-in-two-slots test (A11): the body returns
; y = x + 1 twice, only the first read. PyTensor keeps one nit-sot; eqscan,
; y being loop-invariant, removes the loop (a broadcast of x + 1).
; scans_after: 0
; fires: scan-push-out-nonseq
(program pt_a11_same_value_two_slots
  (input x (f64 3))
  (let (Y1 Y2) (scan
    (outputs_info (nitsot) (nitsot))
    (non_sequences x)
    (n_steps 4)
    (fn (xx) (let y (add xx 1.0)) (outputs y y))))
  (output Y1))
