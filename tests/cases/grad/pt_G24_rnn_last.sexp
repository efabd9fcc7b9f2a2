; Research §1.13 / G24, the second loss: L2 = sum of the last h (the
; backward tape starts [1, 0, ..., 0]); all five gradients.
; wrt: W U b X h0
(program pt_G24_rnn_last
  (input W (f64 3 3))
  (input U (f64 3 2))
  (input b (f64 3))
  (input X (f64 5 2))
  (input h0 (f64 3))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W U b)
    (fn (x_t h w u bias) (tanh (add (add (dot w h) (dot u x_t)) bias)))))
  (let L (sum (index H -1)))
  (let (gW gU gb gX gh0) (grad L W U b X h0))
  (output L gW gU gb gX gh0))
