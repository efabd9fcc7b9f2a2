; Block Gibbs sampling of a restricted Boltzmann machine (PyTensor's scan
; docs, "Using shared variables - Gibbs sampling"): each step draws the
; hidden units given the visible ones, then the visible units given the
; hidden ones. The random key is a loop state: each step splits it into
; the key of the next step and the keys of its two draws.
;   h ~ bernoulli(sigmoid(v W + bhid)),  v' ~ bernoulli(sigmoid(h W^T + bvis))
; Run it:  cargo run --release -- run examples/gibbs_rbm.sexp --gen --dim T=1000
(program gibbs_rbm
  (input W (f64 3 2))
  (input bvis (f64 3))
  (input bhid (f64 2))
  (input v0 (f64 3))
  (let (V K) (scan
    (outputs_info (sitsot v0) (sitsot (key 2024)))
    (non_sequences W bvis bhid)
    (n_steps T)
    (fn (v k w bv bh)
      (let ks (split k 3))
      (let hmean (sigmoid (add (dot v w) bh)))
      (let h (cast f64 (bernoulli (index ks 1) hmean)))
      (let vmean (sigmoid (add (dot w h) bv)))
      (outputs (cast f64 (bernoulli (index ks 2) vmean)) (index ks 0)))))
  ; the samples, and their mean (the visible units' marginal means)
  (output V (mean V 0)))
