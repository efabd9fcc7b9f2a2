; Found by tests/proptest_scan.rs (reduced). scan-push-out-seq on a
; go_backwards scan: the pushed-out sequence is computed on the reversed
; input, (add h0 (slice X none none -1)), but the new scan keeps
; (go_backwards), so the sequence is reversed twice and every output step
; differs (also with EQSCAN_PROPTEST_RULES=scan, the Scan rewrites alone).
; dims: T=4
(program prop
  (input X (f64 2))
  (input h0 (f64))
  (let S13 (scan
    (sequences (X (taps 0)))
    (outputs_info (mitsot X (taps -2)))
    (non_sequences h0)
    (go_backwards)
    (fn (x2 f7 w10) (add f7 (where (gt w10 h0) w10 (add h0 x2))))))
  (output S13))
