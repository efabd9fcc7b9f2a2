; take (numpy.take, no flattening), inc_take (numpy.add.at) and
; set_take (x[idx] = v, the last write of a repeated index winning):
; along axis 0, 1 and -1; a 2-D index array; a 0-D index; negative and
; repeated indices; an empty index; an increment broadcast from a row and
; from a scalar; i64 and bool operands.
(program take_family
  (input X (f64 4 3))
  (input K (i64 4 3))
  (input G (f64 5 3))
  (let J (tensor (i64 5) 3 -1 0 3 1))
  (let J2 (tensor (i64 2 3) 0 -1 0 2 2 1))
  (let Z (tensor (i64 0)))
  (output (take X J) (take X J2) (take X 2) (take X J2 1) (take X (tensor (i64 3) 2 -3 2) -1)
          (take X Z) (take K J 0)
          (inc_take X G J) (inc_take X 1.0 J) (inc_take X (index X 0) J2) (inc_take X 0.5 J2 1)
          (inc_take K 3 J) (inc_take X (index G 0) Z)
          (set_take X G J) (set_take X -1.0 J2) (set_take X (index G 0) J2 1) (set_take K 7 J)
          (set_take (gt X 0.0) true J)))
