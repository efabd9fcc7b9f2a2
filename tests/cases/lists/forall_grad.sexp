; Gradients through forall (issue 41) with respect to the weights its fn
; captures, at depths 2 and 3 (empty lists among the sequences): the cost
; reads the results through flatten and stack; grad goes back through
; stack, flatten and nest (flatten's VJP puts the cotangent back in the
; operand's nesting) to the map over the innermost tensors. Expected
; values from JAX (jax.grad of the per-tensor Python loop), checked in
; tests/list_cases.py against central finite differences.
(program forall_grad
  (input L (list (list (f64 2))))
  (input M (list (list (list (f64 2)))))
  (input W (f64 3 2))
  (input b (f64 3))
  (let R (stack (flatten (forall (fn (x) (tanh (add (dot W x) b))) L))))
  (let S (stack (flatten (flatten (forall (fn (x) (sin (dot W x))) M)))))
  (let cost (add (sum (mul R R)) (sum (mul (dot S b) (dot S b)))))
  (let (gW gb) (grad cost W b))
  (output cost gW gb))
