; An accumulator of the new state's squares, read only at its end:
; a_t = a_{t-1} + h_t * h_t with h_t = tanh(h_{t-1} + x_t). It leaves the
; loop as a stacked output (then computed after the loop from H, and
; dropped from it); its last value is a0 + h_1² + ... + h_T², summed by a
; cumsum in the loop's order, a0 kept. Both forms are in the e-graph; at
; these sizes the cost model keeps the accumulator in the loop (kept at
; its last row), so this case checks the rule fires and the values;
; eq_accumulator_out_scalar and _extreme check the extracted form.
; dims: T=6 D=3
; scans_after: 1
; fires: scan-accumulator-out
(program eq_accumulator_out
  (input X (f64 T D))
  (input h0 (f64 D))
  (input a0 (f64 D))
  (let (H A) (scan (sequences X) (outputs_info (sitsot h0) (sitsot a0))
    (fn (x h a) (let hn (tanh (add h x))) (outputs hn (add a (mul hn hn))))))
  (output H (index A -1)))
