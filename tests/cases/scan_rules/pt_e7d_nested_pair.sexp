; Adapts test_merge's while-conditions test (E7 d) to for loops: the
; mergeable pair (two N-step loops over x and y, both reading the outer
; step's ct) built inside an outer loop. Merged inside the body as
; PyTensor does: the outer loop's body holds one loop (3 loops -> 2).
; dims: T=3 N=4
; fires: scan-merge
; scans_before: 3
; scans_after: 2
(program pt_e7d_nested_pair
  (input c (f64 T))
  (input x (f64 N))
  (input y (f64 N))
  (let O (scan
    (sequences c)
    (non_sequences x y)
    (fn (ct xx yy)
      (let A (scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences ct)
        (fn (s a k) (tanh (add a (mul s k))))))
      (let B (scan (sequences yy) (outputs_info (sitsot 0.0)) (non_sequences ct)
        (fn (s b k) (sin (add b (mul s k))))))
      (add (index A -1) (index B -1)))))
  (output O))
