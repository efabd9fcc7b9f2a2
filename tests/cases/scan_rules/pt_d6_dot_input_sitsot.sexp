; Ports test_push_out's dot-input-is-a-sit-sot test (D6):
; o1_t = o1_{t-1} + a_t (init a[0]) and o2_t = dot(o1_t, b). eqscan makes
; o1 a cumsum and o2 one product after it: no loop.
; scans_after: 0
; fires: scan-to-cumulative scan-push-out-output
(program pt_d6_dot_input_sitsot
  (input a (f64 3 4))
  (input b (f64 4 5))
  (let (O1 O2) (scan
    (sequences a)
    (outputs_info (sitsot (index a 0)) (nitsot))
    (non_sequences b)
    (fn (at o bb) (let o1 (add o at)) (outputs o1 (dot o1 bb)))))
  (output O1 O2))
