; scan-push-out-output from a mit-sot's step value: o_t = 2 m_t + x_t with
; m_t = tanh(m_{t-1} + 0.5 m_{t-3} + x_t); the output holds the steps only,
; not the init rows.
; dims: T=6 N=2
; scans_after: 1
; parts_after: mitsots=1 nitsots=0
; fires: scan-push-out-output
(program eq_push_out_output_mitsot
  (input X (f64 T N))
  (input I (f64 3 N))
  (let (M O) (scan (sequences X) (outputs_info (mitsot I (taps -3 -1)) (nitsot))
    (fn (x m3 m1) (let mn (tanh (add (add m1 (mul 0.5 m3)) x))) (outputs mn (add (mul 2.0 mn) (sin x))))))
  (output M O))
