; scan-push-out-nonseq must not hoist a sub-term that reads the state:
; h_t = tanh(dot(W, h_{t-1}) + b) has no invariant sub-term (W and b are
; bare inputs), so nothing moves and the loop stays as written.
; scans_after: 1
; not_fires: scan-push-out-nonseq scan-push-out-seq scan-to-reduction scan-to-cumulative
(program neg_pushout_nonseq_state_dependent
  (input W (f64 3 3))
  (input b (f64 3))
  (input h0 (f64 3))
  (let H (scan
    (outputs_info (sitsot h0))
    (non_sequences W b)
    (n_steps 5)
    (fn (h w bb) (tanh (add (dot w h) bb)))))
  (output H))
