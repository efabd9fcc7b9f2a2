; Gradients through `index` of a list of tensors (issue 41): the list is a
; map's result that reads the weights, indexed at its first and last
; element (negative index) and at a run-time index; the list's cotangent
; is the index's cotangent on the stacked elements, one list, and a list
; used three times sums its three cotangents element by element. Expected
; values from JAX (jax.grad of the Python loop), checked in
; tests/list_cases.py against central finite differences.
(program index_grad
  (input L (list (f64 3)))
  (input W (f64 3 3))
  (input b (f64 3))
  (input k (i64))
  (let R (map (fn (x) (tanh (add (dot W x) b))) L))
  (let last (index R -1))
  (let cost (add (add (sum (mul last last)) (sum (index R 0))) (sum (mul (index R k) b))))
  (let (gW gb) (grad cost W b))
  (output cost gW gb))
