; Catalogue E7(b) inside an outer loop over [c1, c2]: two while loops of
; one body over [x, z] until z_t > c + 5.5 and over [y, z] until
; z_t > c + 3.5 (c the outer step's value): the same inputs, another
; condition, so they stop at different steps (7 and 5 at c = 0) and must
; not merge; the body keeps both loops.
; scale: e=0.01 C=0.01
; not_fires: scan-merge
; scans_before: 3
; scans_after: 3
(program neg_merge_nested_while_conditions
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
        (fn (s1 s2 cc) (outputs (sub s1 1.0) (until (gt s2 (add cc 3.5)))))))
      (add (sum a) (mul 2.0 (sum b))))))
  (output R))
