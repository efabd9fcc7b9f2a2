; Ports test_push_out's aliasing-outputs test (B4): s_t = inp_t + 10 and
; o_t = s_{t-1}; s reads no state and becomes inp + 10 outside, o must
; still see the init in row 0 and s shifted by one after it.
; scans_after: 1
; fires: scan-push-out-seq
(program pt_b4_aliasing_outputs
  (input inp (f64 5 2))
  (let s0 (zeros (f64 2)))
  (let (S O) (scan
    (sequences inp)
    (outputs_info (sitsot s0) (nitsot))
    (fn (x s) (outputs (add x 10.0) s))))
  (output S O))
