; The rnn_grad workload of ../shared/bench/WORKLOADS.md ("Gradient
; workloads"), every size symbolic (medium: T=500 N=256): the Elman RNN of
; rnn.sexp, L = sum(H * Y), and L's gradients with respect to W, U, b and
; h0 through the loop (the backward loop the grad transform builds).
(program rnn_grad
  (input W (f64 N N))
  (input U (f64 N N))
  (input b (f64 N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (input Y (f64 T N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U b)
    (fn (x_t h_prev w u bias)
      (tanh (add (add (dot w h_prev) (dot u x_t)) bias)))))
  (let L (sum (mul H Y)))
  (let (dW dU db dh0) (grad L W U b h0))
  (output L dW dU db dh0))
