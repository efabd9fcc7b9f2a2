; The same projection of gathered rows, where the table has more rows than
; there are tokens (a large vocabulary, a short batch): projecting every
; row of the table would be more work, so the cost model keeps the
; product of the gathered rows (the rule applies; the snapshot shows the
; matmul of the `take`, as written).
; dims: T=2 M=3 V=400 N=8 K=16
; scans_after: 0
; fires: matmul-take-rows
(program neg_embedding_projection_large_table
  (input tokens (i64 T M))
  (input Wemb (f64 V N))
  (input W (f64 N K))
  (input b (f64 K))
  (let x (mod tokens V))
  (output (add (matmul (take Wemb x) W) b)))
