; Every output but the mitmot is a term of the sequences: the nitsot
; becomes that term, but the loop stays for the tape (PyTensor refuses to
; remove a loop with a mitmot), and the tape is not replaced. The tape (in
; taps 0 1 2, out taps 1 2) is one scan-mitmot-to-carry refuses.
; dims: T=5 N=2
; scans_after: 1
; parts_after: mitmots=1
; fires: scan-push-out-seq
; not_fires: scan-mitmot-to-carry
(program neg_mitmot_push_out_seq_whole
  (input X (f64 T N))
  (input G (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1 2) (out_taps 1 2)) (nitsot))
    (fn (x g0 g1 g2) (outputs (add g1 (exp x)) (add g2 g0) (exp x)))))
  (output R Y))
