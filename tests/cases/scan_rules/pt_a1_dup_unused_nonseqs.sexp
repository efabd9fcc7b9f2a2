; Ports test_io's duplicate/unused non-sequences test (A1): a map over
; indices reading rows of W, with W[0] passed twice more and never read;
; the loop keeps one non-sequence. The index stays a per-step read (no
; gather op), so the loop stays, as in PyTensor.
; dims: K=2
; scale: v=0.2
; scans_after: 1
; parts_after: seqs=1 nonseqs=1 nitsots=1
; fires: scan-tidy-inputs
(program pt_a1_dup_unused_nonseqs
  (input W (f64 3 3))
  (input v (i64 K))
  (let W0 (index W 0))
  (let Y (scan
    (sequences v)
    (non_sequences W0 W W0)
    (fn (i a w b) (index w i))))
  (output Y))
