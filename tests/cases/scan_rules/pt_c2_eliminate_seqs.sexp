; Ports test_basic's eliminate_seqs (C2): a mit-sot (taps -1 -3) = u_t + 1,
; a sit-sot = u_t + 2 and a nit-sot = u_t + 3; no loop remains and each
; output has 5 rows.
; dims: T=5
; scans_after: 0
; fires: scan-push-out-seq
(program pt_c2_eliminate_seqs
  (input u (f64 T))
  (let (M S N) (scan
    (sequences u)
    (outputs_info (mitsot (zeros (f64 3)) (taps -1 -3)) (sitsot 0.0) (nitsot))
    (fn (x m1 m3 s) (outputs (add x 1.0) (add x 2.0) (add x 3.0)))))
  (output M S N))
