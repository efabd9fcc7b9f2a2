; Ports test_trace's mixed RNN test (F4): a nit-sot y_{t-3} + 1, a sit-sot
; x_t = u1_t W_in1 + u2_t W_in2 + x_{t-1} W and a mit-sot (taps -1 -3)
; y_t = y_{t-1} + x_{t-1} . W_out, last values read; the input terms can
; move out (they cost the same either way, so the loop is kept as written).
; scans_after: 1
; fires: scan-push-out-seq
(program pt_f4_mixed_rnn_last
  (input u1 (f64 8 2))
  (input u2 (f64 8))
  (input x0 (f64 2))
  (input y0 (f64 3))
  (input W_in1 (f64 2 2))
  (input W_in2 (f64 2))
  (input W (f64 2 2))
  (input W_out (f64 2))
  (let (Z X Y) (scan
    (sequences u1 u2)
    (outputs_info (nitsot) (sitsot x0) (mitsot y0 (taps -1 -3)))
    (non_sequences W_in1 W_in2 W W_out)
    (fn (a b x y1 y3 wi1 wi2 w wo)
      (outputs
        (add y3 1.0)
        (add (add (dot a wi1) (mul b wi2)) (dot x w))
        (add y1 (dot x wo))))))
  (output (index Z -1) (index X -1) (index Y -1)))
