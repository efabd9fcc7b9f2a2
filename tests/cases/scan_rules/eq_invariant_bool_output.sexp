; An invariant bool and an invariant i64 output become broadcasts of the
; right dtype.
; dims: N=3
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_invariant_bool_output
  (input w (f64 N))
  (input k (i64 N))
  (let (B K) (scan (outputs_info (nitsot) (nitsot)) (non_sequences w k) (n_steps 4)
    (fn (ww kk) (outputs (gt ww 0.0) (mul kk 2)))))
  (output B K))
