; (let (A B) (scan ...)) with a state and a nitsot; body with lets.
; dims: T=5 N=3
(program scan_multiple_outputs
  (input X (f64 T N))
  (input a0 (f64 N))
  (let (A B) (scan
    (sequences X)
    (outputs_info (sitsot a0) (nitsot))
    (fn (x a)
      (let a2 (add a x))
      (let b (mul a2 x))
      (outputs a2 (sum b)))))
  (output A B (sub (index A -1) (sum B))))
