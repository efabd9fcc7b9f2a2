; An Elman RNN over a sequence of T inputs (the `rnn` workload).
;   h_t = tanh(W h_{t-1} + U x_t + b)
; Run it:  cargo run --release -- run examples/rnn.sexp --gen --dim T=500
; dot(U, x_t) + b depends only on the sequence: the Scan rewrites (a later
; issue) hoist it out of the loop as one matmul.
(program rnn
  (input W (f64 256 256))
  (input U (f64 256 256))
  (input b (f64 256))
  (input X (f64 T 256))
  (input h0 (f64 256))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U b)
    (fn (x_t h_prev w u bias)
      (tanh (add (add (dot w h_prev) (dot u x_t)) bias)))))
  (output H (index H -1)))
