; concatenating f64 and i64 gives f64.
(program concat_1d_promote
  (input a (f64 3))
  (input b (f64 2))
  (input k (i64 4))
  (output (concat 0 a b a) (concat 0 a k) (concat 0 a)))
