; Adapts test_trace's zero-step test (F8) and test_basic's empty-sequence
; test (H1): the running sum s_t = s_{t-1} + x_t over 0 steps becomes a
; cumsum of an empty sequence, with shape (0, 3).
; dims: T=0
; cost_dims: T=1000
; scans_after: 0
; fires: scan-to-cumulative
(program pt_f8_zero_steps
  (input x (f64 T 3))
  (input s0 (f64 3))
  (let S (scan (sequences x) (outputs_info (sitsot s0))
    (fn (xt s) (add s xt))))
  (output S))
