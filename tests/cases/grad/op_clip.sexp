; d/dX, d/dLO, d/dHI of sum(C * clip(X, LO, HI)), the bounds a row and a
; scalar: X receives C inside [LO, HI], LO where X is below it, HI where
; X is above it (no element within the finite-difference step of a bound).
; wrt: X LO HI
(program op_clip
  (input C (f64 3 4))
  (input X (f64 3 4))
  (input LO (f64 4))
  (input HI (f64))
  (let L (sum (mul C (clip (mul 2.0 X) (sub (mul 0.5 LO) 0.1) (add HI 0.3)))))
  (let (gX gLO gHI) (grad L X LO HI))
  (output L gX gLO gHI))
