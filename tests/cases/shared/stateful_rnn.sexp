; An RNN whose hidden state carries over from one call to the next: three
; calls on T steps each equal one call on 3T steps.
; dims: T=5 N=3
(program stateful_rnn
  (input X (f64 T N))
  (input W (f64 N N))
  (shared h (f64 N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h))
    (non_sequences W)
    (fn (x hp w) (tanh (add x (dot w hp))))))
  (update h (index H -1))
  (output H))
