; The gradient of the batched Elman map (docs/lists.md "Batching") with
; respect to Wx, Wh, b and h0, over sequences of lengths 0, 4, 0, 1, 7, 0
; (empty ones first and last): the batched loop's gradient must equal the
; per-sequence gradients (JAX over the per-sequence loop, checked against
; central differences in tests/list_cases.py).
(program batch_grad
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
