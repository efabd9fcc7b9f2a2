; Adapts test_merge's for-vs-while test (E5) to fixed loops:
; y1_t = x_t y1_{t-1} and y2_t = x_t + y2_{t-1} over the same x. PyTensor
; cannot merge them (one is a while loop); eqscan turns both into cumprod
; and cumsum: no loop.
; dims: T=5
; scans_after: 0
; fires: scan-to-cumulative
(program pt_e5_fixed_loops_fold
  (input x (f64 T))
  (let Y1 (scan (sequences x) (outputs_info (sitsot 1.0))
    (fn (s y) (mul s y))))
  (let Y2 (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s y) (add s y))))
  (output Y1 Y2))
