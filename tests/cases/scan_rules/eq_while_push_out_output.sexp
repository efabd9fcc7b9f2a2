; scan-push-out-output on a while loop (research §5.2: an output that
; does not feed the condition may be computed after the loop, once the
; steps that ran are known): o_t = V h_t for the state h_t = tanh(W h + x)
; is, over the 5 steps that run of at most 100000 (a counter stops it),
; the stacked states times V transposed: one matrix product after the
; loop, and the loop drops O (scan-drop-output). The states stay in the
; loop, whose step count and condition do
; not change.
; dims: N=4
; scale: W=0.25
; fires: scan-push-out-output scan-drop-output
; scans_after: 1
(program eq_while_push_out_output
  (input W (f64 N N))
  (input V (f64 N N))
  (input x (f64 N))
  (let (H O K) (scan
    (outputs_info (sitsot (zeros (f64 N))) (nitsot) (sitsot (zeros (f64))))
    (non_sequences W V x)
    (n_steps 100000)
    (fn (h k w v xv)
      (let h1 (tanh (add (dot w h) xv)))
      (let k1 (add k 1.0))
      (outputs h1 (dot v h1) k1 (until (ge k1 5.0))))))
  (output H O K))
