; Port of test_non_shaped_input_disconnected_gradient (G19): (d + s_t)^2
; mapped over seq = [u_0, nan, nan]; L = xs[0]; dL/du_0 = 2 (d + u_0), and
; the NaNs of the steps L does not read must not leak into it.
; Values are PyTensor's.
(program pt_G19_non_shaped_input_disconnected_gradient
  (input u (f64 3))
  (input d (f64))
  (let seq (concat 0 (slice u 0 1) (fill (f64 2) nan)))
  (let xs (scan (sequences seq) (non_sequences d) (fn (s dd) (let a (add dd s)) (mul a a))))
  (let L (index xs 0))
  (output L (grad L u)))
