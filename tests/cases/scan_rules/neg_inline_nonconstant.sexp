; scan-inline-constants must not move a non-sequence computed from a
; program input into the body, nor a constant state init (the loop starts
; from it; it is no input the body reads).
; dims: N=3
; scans_after: 1
; not_fires: scan-inline-constants
(program neg_inline_nonconstant
  (input w (f64 N))
  (let v (mul w 3.0))
  (let S (scan (outputs_info (sitsot (zeros (f64 N)))) (non_sequences v) (n_steps 5)
    (fn (s vv) (tanh (add (mul s vv) 1.0)))))
  (output S))
