; A while loop's output that is wholly loop-invariant (exp(c), the same
; at every step) is not its value repeated n_steps times, as a for loop's
; is: it holds one row per step that ran (7 of at most 50 here: a
; counter stops the loop at 7). The invariant term is still computed
; once before the loop (scan-push-out-nonseq), and the outputs keep the
; 7 rows.
; dims: N=3
; fires: scan-push-out-nonseq
; scans_after: 1
(program neg_while_invariant_output
  (input c (f64 N))
  (let (E K) (scan
    (outputs_info (nitsot) (sitsot (zeros (f64))))
    (non_sequences c)
    (n_steps 50)
    (fn (k cv)
      (let k1 (add k 1.0))
      (outputs (exp cv) k1 (until (ge k1 7.0))))))
  (output E K))
