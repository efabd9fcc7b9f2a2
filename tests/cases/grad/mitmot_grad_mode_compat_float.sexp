; The hand-built MIT-MOT of research §2.3 with float data: a sequence s of
; 5 steps, two tapes of 6 slots of 2x2, each read at in taps 0 and 1 and
; written at out tap 1 (A: (s + a0) + a1, B: s b0 + b1). The gradient of a
; cost of both tapes after the loop with respect to the sequence and to
; both tapes' initial contents, checked by finite differences.
; wrt: s A B
(program mitmot_grad_mode_compat_float
  (input s (f64 5))
  (input A (f64 6 2 2))
  (input B (f64 6 2 2))
  (let (TA TB) (scan
    (sequences s)
    (outputs_info
      (mitmot A (in_taps 0 1) (out_taps 1))
      (mitmot B (in_taps 0 1) (out_taps 1)))
    (fn (s_t a0 a1 b0 b1)
      (outputs (add (add s_t a0) a1) (add (mul s_t b0) b1)))))
  (let L (add (sum (tanh TA)) (sum (mul TB TB))))
  (let (gs gA gB) (grad L s A B))
  (output L gs gA gB))
