; Ports test_basic's eliminate_nonseqs (B11) and checks PyTensor's defect is
; not reproduced: a mit-sot (taps -1 -3) = W+1, a sit-sot = W+2 and a
; nit-sot = W+3, all invariant; every output has n_steps = 5 rows
; (PyTensor gives the states 2 and 4).
; scans_after: 0
; fires: scan-push-out-nonseq
(program pt_b11_eliminate_nonseqs
  (input W (f64))
  (let (M S N) (scan
    (outputs_info (mitsot (zeros (f64 3)) (taps -1 -3)) (sitsot 0.0) (nitsot))
    (non_sequences W)
    (n_steps 5)
    (fn (m1 m3 s w) (outputs (add w 1.0) (add w 2.0) (add w 3.0)))))
  (output M S N))
