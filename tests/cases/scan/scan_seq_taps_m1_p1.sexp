; sequence taps (-1 1) with a state: step t reads X[t] and X[t+2]; T-2 steps.
; dims: T=7 N=3
(program scan_seq_taps_m1_p1
  (input X (f64 T N))
  (input a0 (f64 N))
  (let A (scan
    (sequences (X (taps -1 1)))
    (outputs_info (sitsot a0))
    (fn (x_m1 x_p1 a) (add (mul a 0.5) (mul x_m1 (add x_p1 1.0))))))
  (output A))
