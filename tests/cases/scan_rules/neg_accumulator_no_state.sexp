; An accumulator of a term of the sequence only (a_t = a_{t-1} + x_t²):
; that is scan-to-reduction's (a sum over the steps), not this rule's.
; dims: T=6 D=3
; scans_after: 1
; not_fires: scan-accumulator-out
; fires: scan-to-reduction
(program neg_accumulator_no_state
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (outputs (tanh (add h x)) (add a (mul x x))))))
  (output H (index A -1)))
