; A MIT-MOT shaped like a mit-sot's dual, going backwards: in taps (0 1 3),
; out taps (3 1), so every slot is written twice (the value a step read is
; gone from the tape after the loop) and read in between; the step reads a
; sequence (from its end) and a non-sequence. The gradient with respect to
; the tape (T+3 slots: P then Q, so that its length is the shortest T
; steps need whatever T), the sequence and the non-sequence, checked by
; finite differences.
; wrt: P Q X c
; dims: T=5 N=2
(program mitmot_grad_overwrite_twice
  (input P (f64 T N))
  (input Q (f64 3 N))
  (input X (f64 T N))
  (input c (f64))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot (concat 0 P Q) (in_taps 0 1 3) (out_taps 3 1)))
    (non_sequences c)
    (go_backwards)
    (fn (x g0 g1 g3 cc)
      (outputs (add g3 (mul (tanh g0) x)) (add (mul g1 cc) (mul g0 g0))))))
  (let L (sum (mul R (cos R))))
  (let (gP gQ gX gc) (grad L P Q X c))
  (output L gP gQ gX gc))
