; Second order through a loop (issue 13): the squared norm of the RNN's
; gradient with respect to W, N = |dL/dW|^2 with L = sum(H * Y), and N's
; own gradients with respect to W, U, h0 and X, checked by finite
; differences.
; wrt: W U h0 X
; dims: T=4
(program loop_second_order_gradnorm
  (input W (f64 3 3))
  (input U (f64 3 2))
  (input h0 (f64 3))
  (input X (f64 T 2))
  (input Y (f64 T 3))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W U)
    (fn (x_t h w u) (tanh (add (dot w h) (dot u x_t))))))
  (let L (sum (mul H Y)))
  (let gW (grad L W))
  (let N (sum (mul gW gW)))
  (let (nW nU nh0 nX) (grad N W U h0 X))
  (output N nW nU nh0 nX))
