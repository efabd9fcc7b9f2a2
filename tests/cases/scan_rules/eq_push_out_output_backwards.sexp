; scan-push-out-output going backwards: o_t = dot(V, h_t) * x_t mixes the
; new state with the sequence; after the loop the stacked states
; (iteration order) must meet the sequence reversed.
; dims: T=6 N=3
; scans_after: 1
; parts_after: nitsots=0
; fires: scan-push-out-output
(program eq_push_out_output_backwards
  (input X (f64 T N))
  (input W (f64 N N))
  (input h0 (f64 N))
  (input V (f64 N N))
  (let (H O) (scan (sequences X) (outputs_info (sitsot h0) (nitsot)) (non_sequences W V)
    (go_backwards)
    (fn (x h w v) (let hn (tanh (add (dot w h) x))) (outputs hn (mul (dot v hn) x)))))
  (output H O))
