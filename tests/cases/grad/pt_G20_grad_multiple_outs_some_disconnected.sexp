; Port of TestExamples::test_grad_multiple_outs_some_disconnected (G20):
; end-to-end training. An RNN h_t = tanh(x_t Wih + h_{t-2} Whh + bh)
; (a mitsot with taps (-2 -1), h_{t-1} unused: the disconnected output of
; the test's name), y_t = h_t Who + bo, cost 0.5 mean((y - t)^2) +
; 0.5 (std y - std t)^2 on s = sin(0:0.21:10.49) minus its last value,
; input s[:-1], target s[1:]; 100 steps of gradient descent (rate 0.1),
; themselves a scan whose body holds the grad. The test asserts a final
; cost below 0.02; here every output is compared with PyTensor's.
; Initial weights: fixed small values (the test draws them at random).
; The cost falls from 0.696 to 0.0040 (PyTensor: the same to 1e-9).
(program pt_G20_grad_multiple_outs_some_disconnected
  (input u (f64))
  (let s0 (sin (mul 0.21 (arange 50))))
  (let s (sub s0 (index s0 -1)))
  (let X (expand_dims (slice s 0 -1) 1))
  (let Tg (expand_dims (slice s 1 none) 1))
  (let Wih0 (add u (mul 0.3 (reshape (cos (arange 3)) 1 3))))
  (let Whh0 (mul 0.2 (reshape (sin (mul 1.7 (arange 9))) 3 3)))
  (let bh0 (mul 0.1 (cos (mul 2.3 (arange 3)))))
  (let Who0 (mul 0.4 (reshape (sin (add 0.5 (arange 3))) 3 1)))
  (let bo0 (fill (f64 1) 0.0))
  (let (Wih Whh bh Who bo C) (scan
    (outputs_info (sitsot Wih0) (sitsot Whh0) (sitsot bh0) (sitsot Who0) (sitsot bo0) (nitsot))
    (non_sequences X Tg)
    (n_steps 100)
    (fn (w1 w2 b1 w3 b3 xs ts)
      (let H (scan (sequences xs)
        (outputs_info (mitsot (zeros (f64 2 3)) (taps -2 -1)))
        (non_sequences w1 w2 b1)
        (fn (x_t h2 h1 a1 a2 c1) (tanh (add (add (dot x_t a1) (dot h2 a2)) c1)))))
      (let Y (add (dot H w3) b3))
      (let dy (sub Y ts))
      (let sy (sqrt (mean (mul (sub Y (mean Y)) (sub Y (mean Y))))))
      (let st (sqrt (mean (mul (sub ts (mean ts)) (sub ts (mean ts))))))
      (let cost (add (mul 0.5 (mean (mul dy dy))) (mul 0.5 (mul (sub sy st) (sub sy st)))))
      (let (g1 g2 gb1 g3 gb3) (grad cost w1 w2 b1 w3 b3))
      (outputs (sub w1 (mul 0.1 g1)) (sub w2 (mul 0.1 g2)) (sub b1 (mul 0.1 gb1))
               (sub w3 (mul 0.1 g3)) (sub b3 (mul 0.1 gb3)) cost))))
  (output (index C 0) (index C -1) (index Wih -1) (index Who -1)))
