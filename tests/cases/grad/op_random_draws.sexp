; Draws are constants for grad: d/dx of sum(x u) + sum(x^2 z) is u + 2 x z
; (u uniform, z normal, drawn from keys made in the program), and bernoulli
; and categorical give no gradient with respect to P and LOGITS (JAX's
; convention: their results are piecewise constant there); a per-step key
; in a loop too. Finite differences see the same draws at every point.
; wrt: x
; dims: T=4
(program op_random_draws
  (input x (f64 3))
  (let k (key 17))
  (let u (uniform k (f64 3)))
  (let z (normal (fold_in k 1) (f64 3)))
  (let b (cast f64 (bernoulli (fold_in k 2) (sigmoid x))))
  (let c (cast f64 (categorical (fold_in k 3) x)))
  (let S (scan (sequences (arange T)) (outputs_info (sitsot 0.0)) (non_sequences x k)
    (fn (t acc xx kk) (add acc (sum (mul xx (uniform (fold_in kk t) (f64 3))))))))
  (let L (add (add (sum (mul x u)) (sum (mul (mul x x) z)))
              (add (add (sum b) c) (index S -1))))
  (output L (grad L x)))
