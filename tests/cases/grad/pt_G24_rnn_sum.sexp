; Research §1.13 / G24: the RNN h_t = tanh(W h_{t-1} + U x_t + b), T = 5,
; H = 3, D = 2, loss L1 = sum of every h_t; all five gradients (W, U, b,
; X, h0), against finite differences and PyTensor.
; wrt: W U b X h0
(program pt_G24_rnn_sum
  (input W (f64 3 3))
  (input U (f64 3 2))
  (input b (f64 3))
  (input X (f64 5 2))
  (input h0 (f64 3))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W U b)
    (fn (x_t h w u bias) (tanh (add (add (dot w h) (dot u x_t)) bias)))))
  (let L (sum H))
  (let (gW gU gb gX gh0) (grad L W U b X h0))
  (output L gW gU gb gX gh0))
