; Random keys and draws against tests/numpy_cases.py's own Philox4x32-10
; (written from Random123's description, not from eqscan's kernel): keys
; of ordinary and extreme seeds, split (row i equal to fold_in i), fold_in
; broadcast over an index vector, f64 and f32 uniforms and normals (odd
; sizes: a block's second half unused), a draw per key of a key array,
; bernoulli with p below 0, in (0, 1) and above 1, categorical with a
; -inf logit (never drawn) and logits of +-700 and 1e300.
; dims: N=5
; scale: p=3.0
(program random_draws
  (input p (f64 N))
  (let k (key 42))
  (let ks (split k 4))
  (let kx (stack (key 0) (key -1) (key 9223372036854775807) (key -9223372036854775807)))
  (let f (fold_in k (arange N)))
  (let logits (tensor (f64 4 3) 0.0 -inf 1.0  700.0 -700.0 700.0  -inf -inf 2.5  1e300 0.0 -1e300))
  (output kx ks (index ks 2) (fold_in k 2) f
          (uniform k (f64 3 5)) (uniform (index ks 1) (f32 7)) (uniform ks (f64 2))
          (normal k (f64 5)) (normal (fold_in k -3) (f32 2 3)) (normal f (f64 3))
          (bernoulli k p) (bernoulli ks (add p 0.5))
          (categorical k logits) (categorical ks (index logits 0))))
