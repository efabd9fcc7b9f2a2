; argmax and argmin (i64: the first index on ties, the first NaN's index
; when there is one, all axes flattened without an axis), all and any
; (bool: non-zero is true, NaN included; -0.0 is false), on floats with
; ties and NaN, integers and bools, as NumPy 2.
(program reduce_arg_truth
  (input X (f64 3 4))
  (input K (i64 2 3))
  (let T (tensor (f64 2 4) 1.0 nan 3.0 nan 2.0 2.0 -1.0 -1.0))
  (let Z (tensor (f64 2 2) 0.0 -0.0 nan 0.0))
  (let B (gt X 0.0))
  (output (argmax X) (argmax X 0) (argmin X -1) (argmax T 1) (argmin T 1) (argmin K 0) (argmax B 1)
          (all Z 1) (any Z 1) (all X) (any B 0) (all K) (any (eq K 100))))
