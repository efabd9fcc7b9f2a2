; Per-step draws from keys folded in from the step index leave the loop:
; the vectorizer writes (uniform (fold_in K t) T) over the steps as one
; draw from the array of keys (fold_in K (arange T)), which is each key's
; draw stacked, bit for bit (the harness compares the values). Two draws
; from different keys (K and K2, and the bernoulli's key) stay two draws;
; a per-step P (the bernoulli of x) has no batched form and keeps its loop.
; dims: T=6 D=3
; scans_after: 1
; fires: scan-push-out-seq
(program eq_vectorize_draws
  (input X (f64 T D))
  (let K (key 11))
  (let K2 (key 12))
  (let Y (scan (sequences X (arange T)) (non_sequences K K2)
    (fn (x t k k2)
      (add (add x (uniform (fold_in k t) (f64 D))) (normal (fold_in k2 t) (f64 D))))))
  (let B (scan (sequences X (arange T)) (non_sequences K)
    (fn (x t k) (bernoulli (fold_in (fold_in k 1) t) (sigmoid x)))))
  (output Y B))
