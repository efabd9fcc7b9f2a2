; The accumulator's previous value feeds the other state
; (h_t = tanh(h_{t-1} + a_{t-1} x_t)): it is part of the recurrence, so it
; stays in the loop.
; dims: T=6 D=3
; scans_after: 1
; not_fires: scan-accumulator-out
(program neg_accumulator_feeds_recurrence
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (let hn (tanh (add h (mul a x)))) (outputs hn (add a (mul hn hn))))))
  (output H (index A -1)))
