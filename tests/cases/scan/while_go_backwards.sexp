; go_backwards with until: a running sum of X read from its end,
; a_t = a + x, n_steps 16 (so X[19] down to X[4] at most), until a_t < -1.5.
; With the data rule the sums run 0.340, 0.524, 0.527, 0.349, 0.015,
; -0.432, -0.929, -1.411, -1.811: 9 of the 16 steps (nearest miss -1.411,
; 0.09 above the threshold). Outputs are in iteration order.
; dims: T=20
(program while_go_backwards
  (input X (f64 T))
  (let A (scan
    (sequences X)
    (outputs_info (sitsot (zeros (f64))))
    (n_steps 16)
    (go_backwards)
    (fn (x a)
      (let a1 (add a x))
      (outputs a1 (until (lt a1 -1.5))))))
  (output A))
