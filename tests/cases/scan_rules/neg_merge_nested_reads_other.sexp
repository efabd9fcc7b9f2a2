; Two N-step loops of one body where the second reads the first's last
; value (a non-sequence of the second): merging them would make the
; merged loop read its own output, so scan-merge must not fire and the
; outer loop's body keeps both loops.
; dims: T=3 N=4
; not_fires: scan-merge
; scans_before: 3
; scans_after: 3
(program neg_merge_nested_reads_other
  (input c (f64 T))
  (input x (f64 N))
  (input y (f64 N))
  (let O (scan
    (sequences c)
    (non_sequences x y)
    (fn (ct xx yy)
      (let A (scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences ct)
        (fn (s a k) (tanh (add a (mul s k))))))
      (let B (scan (sequences yy) (outputs_info (sitsot 0.0)) (non_sequences (index A -1))
        (fn (s b k) (sin (add b (mul s k))))))
      (add (index A -1) (index B -1)))))
  (output O))
