; scan-inline-constants on an f32 scalar constant non-sequence with an f32
; state: the inlined constant keeps the state f32.
; dims: T=5 N=3
; scans_after: 1
; fires: scan-inline-constants
(program eq_inline_f32_scalar
  (input X (f32 T N))
  (input s0 (f32 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0)) (non_sequences (fill (f32) 0.5))
    (fn (x s c) (tanh (add (mul s c) x)))))
  (output S))
