; Ports test_merge's three-scans test (E3): X over x, Y over 2y+2, Z over
; X's output, 4 steps each. PyTensor keeps 2 loops (X and Z depend);
; eqscan fuses Z into X (Z reads X's step value) and merges Y: one loop.
; dims: T=4
; scans_after: 1
; fires: scan-merge scan-fuse
(program pt_e3_three_scans
  (input x (f64 T))
  (input y (f64 T))
  (let X (scan (sequences x) (outputs_info (sitsot 0.0))
    (fn (s a) (tanh (add (mul a 0.5) s)))))
  (let Y (scan (sequences (add (mul y 2.0) 2.0)) (outputs_info (sitsot 0.0))
    (fn (s a) (sin (add a s)))))
  (let Z (scan (sequences X) (outputs_info (sitsot 1.0))
    (fn (s a) (cos (mul a s)))))
  (output X Y Z))
