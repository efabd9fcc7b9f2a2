; G24's addition for eqscan: the same RNN written with matmul, loss
; sum(H * Y); its gradients must equal the dot form's.
; wrt: W U b h0
(program pt_G24_rnn_matmul
  (input W (f64 3 3))
  (input U (f64 3 2))
  (input b (f64 3))
  (input X (f64 5 2))
  (input h0 (f64 3))
  (input Y (f64 5 3))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W U b)
    (fn (x_t h w u bias) (tanh (add (add (matmul w h) (matmul u x_t)) bias)))))
  (let L (sum (mul H Y)))
  (let (gW gU gb gh0) (grad L W U b h0))
  (output L gW gU gb gh0))
