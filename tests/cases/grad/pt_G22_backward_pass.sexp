; Port of tests/scan/test_checkpoints.py::test_backward_pass (G22; the plain
; scan, eqscan has no checkpointed form): r_t = r_{t-1} A / s_t over
; s = 1..101 from ones; L = sum(log r[-1]) (upstream differentiates
; sum(r[-1]), which underflows at these A), A in [15, 25].
; wrt: u
(program pt_G22_backward_pass
  (input u (f64 10))
  (let A (add (mul u 10.0) 20.0))
  (let s (add (cast f64 (arange 101)) 1.0))
  (let rs (scan (sequences s) (outputs_info (sitsot (ones (f64 10)))) (non_sequences A)
    (fn (s_t r a) (div (mul r a) s_t))))
  (let L (sum (log (index rs -1))))
  (output L (grad L u)))
