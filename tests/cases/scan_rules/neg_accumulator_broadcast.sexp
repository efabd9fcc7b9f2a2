; The term added is a scalar broadcast to the vector accumulator
; (a_t = a_{t-1} + sum(h_t)): its type is not the state's, so the rule
; does not fire; the values are the loop's.
; dims: T=6 D=3
; scans_after: 1
; not_fires: scan-accumulator-out
(program neg_accumulator_broadcast
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (let hn (tanh (add h x))) (outputs hn (add a (sum hn))))))
  (output H (index A -1)))
