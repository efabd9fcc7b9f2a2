; Catalogue E5, E6 and E7(a), (b): while loops that must not merge.
; - E5: a for loop y_t = x_t y_{t-1} and a while loop y_t = x_t + y_{t-1}
;   until x_t > 0.5, over the same x: a for loop and a while loop never
;   merge (the while loop runs 2 of 6 steps here, x = [0, 1, ...]);
; - E6: add = x + 1 over x and sub = y - 1 over y, both until s > 5.5:
;   the same condition over other inputs (add runs 7 steps, sub all 10:
;   y < 5.5);
; - E6: add until x > 5.5 and sub_alt until x > 4.5, over the same x
;   (7 and 6 steps);
; - E7(a): sequences [x, z] and [y, -z], both until s2 > c: the second
;   condition reads -z (1 step, -z_0 = 0 > -0.5 + c is true for c < 0.5;
;   the first runs 7 steps);
; - E7(b): [x, z] until z > c + 5.5 (E7(a)'s first loop) and [y, z]
;   until z > c + 3.5 (7 and 5 steps).
; Each loop keeps its own step count: nothing merges. Seven loops remain
; of eight: E5's for loop is a cumulative product (scan-to-cumulative).
; scale: e=0.01 c=0.01 y=0.1
; not_fires: scan-merge
; scans_before: 8
; scans_after: 7
(program neg_while_merge_other_inputs
  (input e (f64 10))
  (input y (f64 10))
  (input c (f64))
  (let x (add (cast f64 (arange 10)) e))
  (let z (add (cast f64 (arange 10)) (mul 0.5 e)))
  (let x6 (slice x 0 6))
  (let Y1 (scan (sequences x6) (outputs_info (sitsot 1.0))
    (fn (s p) (outputs (mul s p)))))
  (let Y2 (scan (sequences x6) (outputs_info (sitsot 1.0))
    (fn (s p) (outputs (add s p) (until (gt s 0.5))))))
  (let add1 (scan (sequences x)
    (fn (s) (outputs (add s 1.0) (until (gt s 5.5))))))
  (let sub1 (scan (sequences y)
    (fn (s) (outputs (sub s 1.0) (until (gt s 5.5))))))
  (let subalt (scan (sequences x)
    (fn (s) (outputs (sub s 1.0) (until (gt s 4.5))))))
  (let add2 (scan (sequences x z) (non_sequences c)
    (fn (s1 s2 cc) (outputs (add s1 1.0) (until (gt s2 (add cc 5.5)))))))
  (let sub2 (scan (sequences y (neg z)) (non_sequences c)
    (fn (s1 s2 cc) (outputs (sub s1 1.0) (until (gt s2 (sub cc 0.5)))))))
  (let sub3 (scan (sequences y z) (non_sequences c)
    (fn (s1 s2 cc) (outputs (sub s1 1.0) (until (gt s2 (add cc 3.5)))))))
  (output Y1 Y2 add1 sub1 subalt add2 sub2 sub3))
