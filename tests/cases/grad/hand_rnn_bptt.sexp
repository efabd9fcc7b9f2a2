; Backpropagation through time written by hand, for a scalar recurrence:
; h_t = tanh(w h_{t-1} + x_t), L = sum(h). With a_t = 1 - h_t^2 the
; cotangent delta_t of the pre-activation obeys
; delta_t = a_t (1 + w delta_{t+1}), delta_T = 0 (a go_backwards scan);
; dL/dx_t = delta_t, dL/dw = sum_t delta_t h_{t-1}, dL/dh0 = w delta_0.
; wrt: x w h0
; dims: T=6
(program hand_rnn_bptt
  (input x (f64 T))
  (input w (f64))
  (input h0 (f64))
  (let H (scan (sequences x) (outputs_info (sitsot h0)) (non_sequences w)
    (fn (x_t h wv) (tanh (add (mul wv h) x_t)))))
  (let A (sub 1.0 (mul H H)))
  (let Drev (scan (sequences A) (outputs_info (sitsot (fill (f64) 0.0))) (non_sequences w)
    (go_backwards)
    (fn (a_t d wv) (mul a_t (add 1.0 (mul wv d))))))
  (let D (slice Drev none none -1))
  (let Hprev (concat 0 (expand_dims h0 0) (slice H 0 -1)))
  (output (sum H) D (sum (mul D Hprev)) (mul w (index D 0))))
