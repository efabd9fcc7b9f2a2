; Ports test_trace's buffer-size test (F5): seven outputs u_t + k (three
; nit-sots, a mit-sot with taps -1 -2, a sit-sot, a mit-sot with taps
; -3 -1, a sit-sot) read at x1[-7], x2[-3:-1], x3[-6:], x4[-1], x5[-1];
; none reads a state, so no loop remains (the states' inits play no part).
; scans_after: 0
; fires: scan-push-out-seq
(program pt_f5_buffer_sizes
  (input u (f64 20))
  (input i4 (f64 2))
  (input i5 (f64))
  (input i6 (f64 3))
  (input i7 (f64))
  (let (X1 X2 X3 X4 X5 X6 X7) (scan
    (sequences u)
    (outputs_info (nitsot) (nitsot) (nitsot) (mitsot i4 (taps -1 -2)) (sitsot i5)
      (mitsot i6 (taps -3 -1)) (sitsot i7))
    (fn (x a1 a2 b c3 c1 d)
      (outputs (add x 1.0) (add x 2.0) (add x 3.0) (add x 4.0) (add x 5.0) (add x 6.0) (add x 7.0)))))
  (output (index X1 -7) (slice X2 -3 -1) (slice X3 -6 none) (index X4 -1) (index X5 -1) X6 X7))
