; Several outputs, a sit-sot and a nit-sot (research §7.2 W13, F11 of
; scan_catalogue.md: sit-sot + map), over generated data: s_t = 0.5 s + x_t,
; y_t = sum(s_t^2), until y_t < 0.3. With the data rule y runs 0.556,
; 1.410, 1.070, 0.090: the loop stops after 4 of the 12 steps (the nearest
; miss, 0.556, is 0.26 above the threshold; the hit 0.21 below).
; dims: T=12 N=3
(program while_sitsot_and_nitsot
  (input X (f64 T N))
  (input s0 (f64 N))
  (let (S Y) (scan
    (sequences X)
    (outputs_info (sitsot s0) (nitsot))
    (fn (x s)
      (let s1 (add (mul s 0.5) x))
      (let y (sum (mul s1 s1)))
      (outputs s1 y (until (lt y 0.3))))))
  (output S Y (sub (index S -1) (sum Y))))
