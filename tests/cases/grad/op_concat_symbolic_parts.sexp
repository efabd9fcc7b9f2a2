; concat of several parts of symbolic length (T, 3, T along axis 0):
; each part's cotangent rows are gathered by a loop from its offset
; (T + 3 for the last part of C), as slices take integer bounds only. Was
; refused ("more than one part has a symbolic length"). Along other axes
; it still is (see vjp.rs concat).
; wrt: X Y b
; dims: T=4
(program op_concat_symbolic_parts
  (input X (f64 T 2))
  (input Y (f64 T 2))
  (input b (f64 3 2))
  (let C (concat 0 (tanh X) b (mul Y 2.0)))
  (let E (concat 0 (mul X 0.5) Y))
  (let L (add (sum (sin (mul C C))) (sum (cos (mul E 1.5)))))
  (let (gX gY gb) (grad L X Y b))
  (output L gX gY gb))
