; A map over a list whose fn returns tensors whose leading length is fixed
; but whose next one is known only at run time stacks them, and they must
; then have one shape (SPEC: "stack of tensors of different shapes" is a
; run-time error at the map): sequences of lengths 2, 0 and 1 give
; (2, 2), (2, 0) and (2, 1). One located line at the map (line 9).
; args: run --gen --lengths L=2,0,1
(program p
  (input L (list (list (f64 2))))
  (output (map (fn (s) (transpose (stack s))) L)))
