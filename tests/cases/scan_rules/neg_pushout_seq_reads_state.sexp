; scan-push-out-seq must not hoist a sub-term that reads a state:
; s_t = tanh(x_t * s_{t-1}) and o_t = exp(s_{t-1} + x_t) both mix the
; sequence with the state; push-out-output must not fire on o (it reads the
; state's previous value).
; dims: T=6 N=3
; scans_after: 1
; not_fires: scan-push-out-seq scan-push-out-nonseq scan-push-out-output
(program neg_pushout_seq_reads_state
  (input X (f64 T N))
  (input s0 (f64 N))
  (let (S O) (scan
    (sequences X)
    (outputs_info (sitsot s0) (nitsot))
    (fn (x s) (outputs (tanh (mul x s)) (exp (add s x))))))
  (output S O))
