; Ports test_push_out's BLAS-inside-the-body test (D7): h_t = x_t (a state
; from a sequence, init zeros) and o_t = dot(h_t + h_{t-1}, W); h is the
; sequence itself (computed from the other outputs' steps: push-out-output),
; o reads h's previous value and keeps one loop, which stacks h_t + h_{t-1}
; (scan-stack-factor) so that o is one product after it.
; dims: T=5
; scans_after: 1
; fires: scan-push-out-output scan-stack-factor
(program pt_d7_blas_inside
  (input X (f64 T 3))
  (input W (f64 3 3))
  (let (H O) (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64 3))) (nitsot))
    (non_sequences W)
    (fn (x h w) (outputs x (dot (add x h) w)))))
  (output H O))
