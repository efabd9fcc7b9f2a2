; Ports test_trace's broadcast-init test (F13): y_t = y_{t-2} + y_{t-1}
; (taps -2 -1) from full((2,), v) over 100 steps, read at ys[:-50] and
; ys[-50:]; a recurrence, the loop stays.
; scans_after: 1
(program pt_f13_fibonacci_slices
  (input v (f64))
  (let Y (scan
    (outputs_info (mitsot (add (zeros (f64 2)) v) (taps -2 -1)))
    (n_steps 100)
    (fn (y2 y1) (add y2 y1))))
  (output (slice Y none -50) (slice Y -50 none)))
