; Second order through a while loop: an RNN-like state that stops once
; its first element passes a threshold (6 of at most 12 steps on the data
; rule's inputs; the margin from the threshold is far above a finite
; difference's step), N = |dL/dW|^2 with L = sum(H * Y), and N's own
; gradients with respect to W, h0 and X: the backward loop of the
; backward loop runs over the steps that ran, checked by finite
; differences.
; wrt: W h0 X
; dims: T=12
(program while_second_order_gradnorm
  (input W (f64 3 3))
  (input h0 (f64 3))
  (input X (f64 T 3))
  (input Y (f64 T 3))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences W)
    (fn (x_t h w)
      (let h1 (add (tanh (dot w h)) (add x_t 0.5)))
      (outputs h1 (until (gt (index h1 0) 2.5))))))
  (let L (sum (mul H Y)))
  (let gW (grad L W))
  (let N (sum (mul gW gW)))
  (let (nW nh0 nX) (grad N W h0 X))
  (output N nW nh0 nX H))
