; Catalogue E7(d): the pair of E7(c) (two while loops over [x, z] and
; [y, z], both until z_t > c + 5.5) built inside an outer loop over
; [c1, c2]: merged, the outer loop's body holds one while loop.
; scale: e=0.01 C=0.01
; fires: scan-merge
; scans_before: 3
; scans_after: 2
(program pt_e7d_while_merge_nested
  (input e (f64 10))
  (input y (f64 10))
  (input C (f64 2))
  (let x (add (cast f64 (arange 10)) e))
  (let z (add (cast f64 (arange 10)) (mul 0.5 e)))
  (let R (scan (sequences C) (non_sequences x y z)
    (fn (c xx yy zz)
      (let a (scan (sequences xx zz) (non_sequences c)
        (fn (s1 s2 cc) (outputs (add s1 1.0) (until (gt s2 (add cc 5.5)))))))
      (let b (scan (sequences yy zz) (non_sequences c)
        (fn (s1 s2 cc) (outputs (sub s1 1.0) (until (gt s2 (add cc 5.5)))))))
      (add (sum a) (sum b)))))
  (output R))
