; Adapts test_merge's while-conditions test (E7 d): the mergeable pair
; built inside an outer loop. PyTensor merges it inside the body; eqscan
; pairs only top-level loops, so the body keeps both (3 loops).
; dims: T=3 N=4
; scans_after: 3
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
