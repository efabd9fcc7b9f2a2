; scan-accumulator-sum must not fire on a loop whose step count is not a
; known positive number: reading -1 of an accumulator that ran no step
; fails, where its init plus a sum over no steps would be a value.
; dims: T=5
; not_fires: scan-accumulator-sum
; scans_after: 1
(program neg_accumulator_sum_symbolic_steps
  (input X (f64 T 2 3))
  (input h0 (f64 2 3))
  (let (h acc) (scan
    (sequences X)
    (outputs_info (sitsot h0) (sitsot (zeros (f64 3 3))))
    (fn (x hp a)
      (let hn (tanh (add hp x)))
      (outputs hn (add a (dot (transpose x 1 0) hn))))))
  (output (index acc -1) h))
