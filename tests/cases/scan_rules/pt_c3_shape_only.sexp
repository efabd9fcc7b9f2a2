; Ports test_basic's shape-only test (C3): o1_t = x_t + 1 and the running
; sum o2_t = o2_{t-1} + x_t (init x[0]) over 20 of x's 30 rows; no loop
; remains (o2 becomes a cumsum), both have 20 rows.
; scans_after: 0
; fires: scan-push-out-seq scan-to-cumulative
(program pt_c3_shape_only
  (input x (f64 30))
  (let (O1 O2) (scan
    (sequences x)
    (outputs_info (nitsot) (sitsot (index x 0)))
    (n_steps 20)
    (fn (xt o2) (outputs (add xt 1.0) (add o2 xt)))))
  (output O1 O2))
