; A sub accumulator s_t = s_{t-1} - x_t, read at its end and at every step.
; sub is not associative, so the rules never fold it as written; the
; algebra rules may rewrite it to s + (-x_t), which is a running sum; the
; values must be right either way.
; dims: T=6 N=3
; scans_after: 0
(program neg_reduction_sub
  (input X (f64 T N))
  (input s0 (f64 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0))
    (fn (x s) (sub s x))))
  (output S (index S -1)))
