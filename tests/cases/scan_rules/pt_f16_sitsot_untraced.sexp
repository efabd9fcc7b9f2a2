; Ports test_trace's sit-sot-to-untraced test (F16): r_t = 1 - x_{t-1},
; x_t = x_{t-1} + 0.5 r_t + 0.3 r_{t-1}, y_t = y + 1, w_t = 2 x_{t-1} over
; 10 steps from zeros, reading xs, ys[-1] and ws[-1].
; scans_after: 1
(program pt_f16_sitsot_untraced
  (let z (zeros (f64 3)))
  (let (R X Y W) (scan
    (outputs_info (sitsot z) (sitsot z) (sitsot z) (nitsot))
    (n_steps 10)
    (fn (r x y)
      (let rn (sub 1.0 x))
      (outputs rn (add (add x (mul 0.5 rn)) (mul 0.3 r)) (add y 1.0) (mul 2.0 x)))))
  (output X (index Y -1) (index W -1)))
