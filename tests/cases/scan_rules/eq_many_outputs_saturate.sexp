; A map with five outputs u_t + k must saturate quickly and become five
; whole-sequence adds (minimal form of pt_f1's slowness).
; dims: T=20
; scans_after: 0
; fires: scan-push-out-seq
(program eq_many_outputs_saturate
  (input u (f64 T))
  (let (Y1 Y2 Y3 Y4 Y5) (scan (sequences u)
    (outputs_info (nitsot) (nitsot) (nitsot) (nitsot) (nitsot))
    (fn (x) (outputs (add x 1.0) (add x 2.0) (add x 3.0) (add x 4.0) (add x 5.0)))))
  (output Y1 Y2 Y3 Y4 Y5))
