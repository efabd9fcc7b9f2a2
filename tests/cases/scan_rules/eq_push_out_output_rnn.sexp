; scan-push-out-output: o_t = dot(V, h_t) of the new state is one product
; after the loop, and the loop keeps only the state.
; dims: T=6 N=3
; scans_after: 1
; parts_after: sitsots=1 nitsots=0
; fires: scan-push-out-output
(program eq_push_out_output_rnn
  (input X (f64 T N))
  (input W (f64 N N))
  (input V (f64 N N))
  (input h0 (f64 N))
  (let (H O) (scan (sequences X) (outputs_info (sitsot h0) (nitsot)) (non_sequences W V)
    (fn (x h w v) (let hn (tanh (add (dot w h) x))) (outputs hn (dot v hn)))))
  (output H O))
