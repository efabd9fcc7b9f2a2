; Adapts test_io's unused-sequences test (A2) to the case PyTensor's
; front end hides: the unused sequence is the shorter one and sets the step
; count, so dropping it must keep 2 steps (an explicit n_steps), not 3.
; scale: v=0.2
; scans_after: 1
; parts_after: seqs=1 nonseqs=1 nitsots=1
; fires: scan-tidy-inputs
(program pt_a2b_unused_shorter_seq
  (input W (f64 3 3))
  (input v (i64 3))
  (input u (f64 2 3))
  (let Y (scan
    (sequences u v)
    (non_sequences W)
    (fn (r i w) (index w i))))
  (output Y))
