; Gradients with respect to the weights an Elman map over ragged
; sequences captures (lengths 3, 0, 2, 5, 1: an empty one): the cost is
; the sum of squares of each sequence's final state; its gradients with
; respect to Wx, Wh, b and the shared initial state h0 (which the empty
; sequence returns as it is). Expected values from JAX (jax.grad of the
; per-sequence Python loop), checked in tests/list_cases.py against
; central finite differences.
(program seqs_grad
  (input L (list (list (f64 4))))
  (input Wx (f64 3 4))
  (input Wh (f64 3 3))
  (input b (f64 3))
  (input h0 (f64 3))
  (let hs (map (fn (s) (foldl (fn (h x) (tanh (add (add (dot Wx x) (dot Wh h)) b))) h0 s)) L))
  (let H (stack hs))
  (let cost (sum (mul H H)))
  (let (gx gh gb g0) (grad cost Wx Wh b h0))
  (output cost gx gh gb g0))
