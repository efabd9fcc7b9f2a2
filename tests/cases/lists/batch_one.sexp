; The batched Elman gradient on a batch of one sequence (length 6):
; the padded batch is (6, 1, 4). Reference: JAX over the per-sequence
; loop, checked against central differences (tests/list_cases.py).
(program batch_one
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
