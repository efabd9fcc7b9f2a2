; Adapts test_io's gradient-scan cleanup test (A10) to its forward loop (no
; gradients): x_t = x_{t-1}^2 and y_t = 1.1 y_{t-1} with only sum(xs[-1])
; read, so the forward loop loses y.
; scans_after: 1
; parts_after: sitsots=1
; fires: scan-drop-output
(program pt_a10_forward_cleanup
  (input x0 (f64 5))
  (input y0 (f64 5))
  (let (X Y) (scan
    (outputs_info (sitsot x0) (sitsot y0))
    (n_steps 4)
    (fn (x y) (outputs (mul x x) (mul 1.1 y)))))
  (output (sum (index X -1))))
