; Ports test_basic's only-non-sequence test (B12): out_t = inp (a 2x2
; non-sequence) over 2 steps is inp repeated twice.
; scans_after: 1
(program pt_b12_only_nonseq_input
  (input inp (f64 2 2))
  (let O (scan
    (non_sequences inp)
    (n_steps 2)
    (fn (x) x)))
  (output O))
