; Ports test_push_out's jacobian-of-a-dot test (D4), the jacobian loop
; written by hand: row i is dot(m, e_i) for the rows e_i of the identity
; (the cotangent of output i); it becomes one product, no loop.
; scans_after: 0
; fires: scan-push-out-seq
(program pt_d4_jacobian_of_dot
  (input m (f64 4 5))
  (let E (tensor (f64 5 5)
    1.0 0.0 0.0 0.0 0.0
    0.0 1.0 0.0 0.0 0.0
    0.0 0.0 1.0 0.0 0.0
    0.0 0.0 0.0 1.0 0.0
    0.0 0.0 0.0 0.0 1.0))
  (let J (scan
    (sequences E)
    (non_sequences m)
    (fn (e mm) (dot mm e))))
  (output J))
