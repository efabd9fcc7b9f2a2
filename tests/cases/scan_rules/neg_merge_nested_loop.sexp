; scan-merge never pairs a nested loop with a top-level one: the loop
; over x nested in the outer loop's body reads that body's ct and must
; not be paired with the top-level loop over y (both have N steps): the
; merged loop would read ct where B is used, at the top level.
; dims: T=3 N=4
; scans_after: 3
; not_fires: scan-merge
(program neg_merge_nested_loop
  (input c (f64 T))
  (input x (f64 N))
  (input y (f64 N))
  (let O (scan
    (sequences c)
    (non_sequences x)
    (fn (ct xx)
      (let A (scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences ct)
        (fn (s a k) (tanh (add a (mul s k))))))
      (index A -1))))
  (let B (scan (sequences y) (outputs_info (sitsot 0.0))
    (fn (s b) (sin (add b s)))))
  (output O B))
