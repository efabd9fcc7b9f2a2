; Two while loops over the same sequence, each stopping at its own
; condition (of two different states: each stops after 2 of 12 steps on
; the data rule's inputs), each with a mapped output that is a product of a
; sequence row (for loops, scan-push-out-seq and scan-push-out-output
; would compute it for every row outside the loop, and scan-merge would
; fuse the two loops). A while loop keeps its steps: the outputs hold the
; steps that ran, the loops stay apart, nothing is pushed out (research
; §5.2: merging needs identical conditions, a push-out must not change
; what a consumer sees). The states read at their last step keep only it
; (scan-save-mem, which trims while loops too).
; dims: T=12 N=3
; scans_after: 2
; not_fires: scan-push-out-seq scan-push-out-output scan-merge scan-read-trace
; fires: scan-save-mem
(program neg_while_push_out_and_merge
  (input X (f64 T N))
  (input W (f64 N N))
  (input h0 (f64 N))
  (let (H1 Y1) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences W)
    (fn (x h w)
      (let h1 (add h x))
      (outputs h1 (dot w x) (until (gt (sum h1) 1.5))))))
  (let (H2 Y2) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences W)
    (fn (x h w)
      (let h1 (add h (mul x 0.5)))
      (outputs h1 (dot w x) (until (gt (sum h1) 0.6))))))
  (output (index H1 -1) Y1 (index H2 -1) Y2))
