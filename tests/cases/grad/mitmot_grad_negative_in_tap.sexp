; A user-written MIT-MOT with a negative in tap and out taps that are not
; in taps: in taps (-1 1), out taps (0 2), so step i reads slots i and
; i+2 and replaces slots i+1 and i+3 (a slot's old value is read before
; it is overwritten, or never). The step also reads a sequence at taps
; (-1 0), so the loop runs T-1 steps, and a non-sequence; the tape (T+2
; slots: P then Q) is as long as T-1 steps need. The gradient with respect to the tape's two parts, the
; sequence and the non-sequence, checked by finite differences.
; wrt: P Q X w
; dims: T=4 N=2
(program mitmot_grad_negative_in_tap
  (input P (f64 T N))
  (input Q (f64 2 N))
  (input X (f64 T N))
  (input w (f64 N))
  (let tape (concat 0 P Q))
  (let R (scan
    (sequences (X (taps -1 0)))
    (outputs_info (mitmot tape (in_taps -1 1) (out_taps 0 2)))
    (non_sequences w)
    (fn (xp x a b ww)
      (outputs (tanh (add (mul a ww) x)) (add (mul a b) (mul xp ww))))))
  (let L (sum (mul (sin R) (add R 1.0))))
  (let (gP gQ gX gw) (grad L P Q X w))
  (output L gP gQ gX gw))
