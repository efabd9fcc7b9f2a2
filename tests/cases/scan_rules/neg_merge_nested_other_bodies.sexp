; Two N-step loops in the bodies of two different outer loops (over c,
; T steps, and over d, U steps, so the outer ones do not merge). Both
; bodies are (fn (t xx) ...): the inner loops' inputs are the same
; leaves (arg 1) and (arg 0), which stand for x and c_t in one body and
; for x and d_t in the other. They are used in different bodies, so
; scan-merge must not pair them: 4 loops remain.
; dims: T=3 U=2 N=4
; not_fires: scan-merge
; scans_before: 4
; scans_after: 4
(program neg_merge_nested_other_bodies
  (input c (f64 T))
  (input d (f64 U))
  (input x (f64 N))
  (let O (scan
    (sequences c)
    (non_sequences x)
    (fn (ct xx)
      (let A (scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences ct)
        (fn (s a k) (tanh (add a (mul s k))))))
      (index A -1))))
  (let P (scan
    (sequences d)
    (non_sequences x)
    (fn (dt xx)
      (let B (scan (sequences xx) (outputs_info (sitsot 0.0)) (non_sequences dt)
        (fn (s b k) (sin (add b (mul s k))))))
      (index B -1))))
  (output O P))
