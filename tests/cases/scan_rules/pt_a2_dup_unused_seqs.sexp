; Ports test_io's duplicate/unused sequences test (A2, sequences v, vv[0],
; v and non-sequences W, W[0], W[0]): one sequence and one non-sequence
; remain. The unused vv[0] is longer than v, so the step count stays 2.
; scale: v=0.2
; known_bug: no Scan rewrite fires: the e-graph analysis gives a loop over sequences of lengths 2 and 3 an unknown step count (the parser gives 2)
; scans_after: 1
; parts_after: seqs=1 nonseqs=1 nitsots=1
; fires: scan-tidy-inputs
(program pt_a2_dup_unused_seqs
  (input W (f64 3 3))
  (input v (i64 2))
  (input vv (f64 3 3))
  (let Y (scan
    (sequences v (index vv 0) v)
    (non_sequences W (index W 0) (index W 0))
    (fn (i u j w a b) (index w i))))
  (output Y))
