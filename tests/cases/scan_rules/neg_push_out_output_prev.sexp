; scan-push-out-output must not move o_t = dot(V, h_{t-1}) after the loop:
; it reads the state's previous value, not a step value.
; dims: T=6 N=3
; scans_after: 1
; parts_after: sitsots=1 nitsots=1
; not_fires: scan-push-out-output
(program neg_push_out_output_prev
  (input X (f64 T N))
  (input W (f64 N N))
  (input V (f64 N N))
  (input h0 (f64 N))
  (let (H O) (scan (sequences X) (outputs_info (sitsot h0) (nitsot)) (non_sequences W V)
    (fn (x h w v) (outputs (tanh (add (dot w h) x)) (dot v h)))))
  (output H O))
