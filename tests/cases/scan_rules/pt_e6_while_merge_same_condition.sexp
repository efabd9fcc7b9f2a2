; Research §7.2 W13 / catalogue E6 and E7(c): two while loops with one
; condition over the same inputs merge into one loop, which stops at the
; same step. E6: add = x + 1 and sub = x - 1, both over x = 0..9 plus at
; most 0.01, until x_t > 5.5: 7 of 10 steps, 7 rows each. E7(c): add over
; [x, z] and sub over [y, z], both until z_t > c + 5.5 (z = 0..9 plus at
; most 0.005, c at most 0.01): 7 rows of x + 1 and y - 1. The two pairs
; have different conditions, so two loops remain (research §5.2: merging
; is allowed for identical conditions over identical inputs only).
; scale: e=0.01 c=0.01
; fires: scan-merge
; scans_before: 4
; scans_after: 2
(program pt_e6_while_merge_same_condition
  (input e (f64 10))
  (input y (f64 10))
  (input c (f64))
  (let x (add (cast f64 (arange 10)) e))
  (let z (add (cast f64 (arange 10)) (mul 0.5 e)))
  (let add1 (scan (sequences x)
    (fn (s) (outputs (add s 1.0) (until (gt s 5.5))))))
  (let sub1 (scan (sequences x)
    (fn (s) (outputs (sub s 1.0) (until (gt s 5.5))))))
  (let add2 (scan (sequences x z) (non_sequences c)
    (fn (s1 s2 cc) (outputs (add s1 1.0) (until (gt s2 (add cc 5.5)))))))
  (let sub2 (scan (sequences y z) (non_sequences c)
    (fn (s1 s2 cc) (outputs (sub s1 1.0) (until (gt s2 (add cc 5.5)))))))
  (output add1 sub1 add2 sub2))
