; Ports test_push_out's non-zero initial accumulator test (D3):
; y_t = y_{t-1} + dot(dot(s1_t, W) + s3_t, dot(s2_t, U)) from a random
; init, read at its end: a sum of batched products plus the init, no loop.
; scans_after: 0
; fires: scan-to-reduction
(program pt_d3_nonzero_init_accumulator
  (input s1 (f64 2 3 4))
  (input s2 (f64 2 5 6))
  (input s3 (f64 2 3 5))
  (input W (f64 4 5))
  (input U (f64 6 7))
  (input y0 (f64 3 7))
  (let Y (scan
    (sequences s1 s2 s3)
    (outputs_info (sitsot y0))
    (non_sequences W U)
    (fn (a b c y w u) (add y (dot (add (dot a w) c) (dot b u))))))
  (output (index Y -1)))
