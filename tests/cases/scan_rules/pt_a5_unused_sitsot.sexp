; Ports test_io's remove_unused test for a sit-sot (A5): x_t = x_{t-1} + 1
; and y_t = 0.5 y_{t-1}, only xs read: the loop keeps one state.
; scans_after: 1
; parts_after: sitsots=1
; fires: scan-drop-output
(program pt_a5_unused_sitsot
  (input x0 (f64 5))
  (input y0 (f64 5))
  (let (X Y) (scan
    (outputs_info (sitsot x0) (sitsot y0))
    (n_steps 4)
    (fn (x y) (outputs (add x 1.0) (mul 0.5 y)))))
  (output X))
