; Ports test_io's duplicate/unused non-sequences test (A1, the order
; W, W0, W0): the two unused copies of W[0] after the one read are dropped.
; dims: K=2
; scale: v=0.2
; scans_after: 1
; parts_after: seqs=1 nonseqs=1 nitsots=1
; fires: scan-tidy-inputs
(program pt_a1b_unused_nonseqs_after
  (input W (f64 3 3))
  (input v (i64 K))
  (let W0 (index W 0))
  (let Y (scan
    (sequences v)
    (non_sequences W W0 W0)
    (fn (i w a b) (index w i))))
  (output Y))
