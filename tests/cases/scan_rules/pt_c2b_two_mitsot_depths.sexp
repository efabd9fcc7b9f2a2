; Checks PyTensor's push-out-seq defect is not reproduced (C2 with two
; mit-sots of different depths, taps -1 -3 and -2 -1): PyTensor writes both
; from the deepest state's offset; each output must be u_t + k, 5 rows.
; dims: T=5 N=2
; scans_after: 0
; fires: scan-push-out-seq
(program pt_c2b_two_mitsot_depths
  (input u (f64 T N))
  (input I3 (f64 3 N))
  (input I2 (f64 2 N))
  (let (A B) (scan
    (sequences u)
    (outputs_info (mitsot I3 (taps -1 -3)) (mitsot I2 (taps -2 -1)))
    (fn (x a1 a3 b2 b1) (outputs (add x 1.0) (mul x 2.0)))))
  (output A B))
