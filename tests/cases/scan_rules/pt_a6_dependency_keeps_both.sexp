; Ports test_io's direct-dependency test (A6): x_t = 0.5x + 0.3y and
; y_t = 0.2x + 0.8y with only xs read; x reads y, so both states stay and no
; output can be split off.
; scans_after: 1
; parts_after: sitsots=2
; not_fires: scan-drop-output scan-merge-outputs
(program pt_a6_dependency_keeps_both
  (input x0 (f64 5))
  (input y0 (f64 5))
  (let (X Y) (scan
    (outputs_info (sitsot x0) (sitsot y0))
    (n_steps 4)
    (fn (x y) (outputs (add (mul 0.5 x) (mul 0.3 y)) (add (mul 0.2 x) (mul 0.8 y))))))
  (output X))
