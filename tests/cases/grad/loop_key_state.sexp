; The gradient through a loop whose state holds a key (split each step,
; the draws scaling the float state): the key state carries no gradient,
; the draws are constants; checked against finite differences.
; wrt: x
; dims: T=5
(program loop_key_state
  (input x (f64 3))
  (let (S K) (scan
    (outputs_info (sitsot x) (sitsot (key 5)))
    (n_steps T)
    (fn (s k)
      (let two (split k 2))
      (outputs (mul s (add 0.5 (uniform (index two 1) (f64 3)))) (index two 0)))))
  (let L (sum (index S -1)))
  (output L (grad L x)))
