; Adapts test_io's same-variable-in-two-slots test (A11) to a loop that
; must stay, with two nit-sots with the same step term s_{t-1} * 2 beside the state
; s_t = tanh(s_{t-1} + x_t), both read; they become one output (here
; scan-drop-output unions them first: both smaller loops are one e-node).
; dims: T=6 N=3
; known_bug: the unread duplicate nit-sot stays in the loop: scan-drop-output makes the smaller loop, but an output costs nothing to write in the cost model, so it is not cheaper
; scans_after: 1
; parts_after: sitsots=1 nitsots=1
(program pt_a11b_same_value_two_slots_used
  (input X (f64 T N))
  (input s0 (f64 N))
  (let (S O1 O2) (scan
    (sequences X)
    (outputs_info (sitsot s0) (nitsot) (nitsot))
    (fn (x s) (outputs (tanh (add s x)) (mul s 2.0) (mul s 2.0)))))
  (output S O1 O2))
