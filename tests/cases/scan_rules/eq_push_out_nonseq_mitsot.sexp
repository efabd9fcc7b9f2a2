; scan-push-out-nonseq in a mit-sot recurrence: exp(w) + 1 moves out of
; s_t = tanh(s_{t-1} (exp(w)+1) + 0.5 s_{t-2} + x_t).
; dims: T=6 N=2
; scans_after: 1
; parts_after: mitsots=1 nonseqs=1
; fires: scan-push-out-nonseq
(program eq_push_out_nonseq_mitsot
  (input X (f64 T N))
  (input I (f64 2 N))
  (input w (f64 N))
  (let S (scan (sequences X) (outputs_info (mitsot I (taps -2 -1))) (non_sequences w)
    (fn (x s2 s1 ww) (tanh (add (add (mul s1 (add (exp ww) 1.0)) (mul 0.5 s2)) x)))))
  (output S))
