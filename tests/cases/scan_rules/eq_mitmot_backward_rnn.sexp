; The backward loop of an RNN as a gradient builds it (research §1.13): a
; mitmot tape of cotangents read at in taps (0 1), written at out tap 1,
; over the reversed saved states. 1 - q*q reads only a sequence and moves
; out of the loop (scan-push-out-seq), transpose(W) only a non-sequence
; (scan-push-out-nonseq); the terms reading the tape stay inside; the bias
; accumulator, read at its end, keeps its last step (scan-save-mem on a
; loop with a mitmot). The tape itself is never trimmed.
; dims: T=6 N=3
; scans_after: 1
; parts_after: mitmots=1 sitsots=1 nitsots=1
; fires: scan-push-out-seq scan-push-out-nonseq scan-save-mem
(program eq_mitmot_backward_rnn
  (input W (f64 N N))
  (input Q (f64 T N))
  (input Gbar (f64 T N))
  (let tape (concat 0 Gbar (zeros (f64 1 N))))
  (let (G Acc D) (scan
    (sequences Q)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (sitsot (zeros (f64 N))) (nitsot))
    (non_sequences W)
    (fn (q g g1 acc w)
      (let delta (mul g (sub 1.0 (mul q q))))
      (outputs (add g1 (dot (transpose w) delta)) (add acc delta) delta))))
  (output (index G -1) (index Acc -1) D))
