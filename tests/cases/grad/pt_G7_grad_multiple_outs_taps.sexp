; Port of test_grad_multiple_outs_taps (G7): 5 steps; u2 read with
; sequence taps (-1 0 1); a sit-sot x, a mit-sot y with taps (-3 -1) and a
; nit-sot z: x_t = u1_t W_in1 + (u2_t + u2_{t-1} u2_{t+1}) W_in2 + x_{t-1} W,
; y_t = (y_{t-1} + y_{t-3}) (x_{t-1} . W_out), z_t = u1_t W_in1;
; projected cost over all three; gradients with respect to every input.
; scale: W_in1=0.4 W_in2=0.4 W=0.4 W_out=0.4
; wrt: u1 u2 x0 y0 W_in1 W_in2 W W_out
(program pt_G7_grad_multiple_outs_taps
  (input u1 (f64 5 2))
  (input u2 (f64 7 2))
  (input x0 (f64 2))
  (input y0 (f64 3))
  (input W_in1 (f64 2 2))
  (input W_in2 (f64 2))
  (input W (f64 2 2))
  (input W_out (f64 2))
  (input F1 (f64 5 2))
  (input F2 (f64 5))
  (input F3 (f64 5 2))
  (let (xs ys zs) (scan
    (sequences u1 (u2 (taps -1 0 1)))
    (outputs_info (sitsot x0) (mitsot y0 (taps -3 -1)) (nitsot))
    (non_sequences W_in1 W_in2 W W_out)
    (fn (a um1 u0 up1 xp ym3 ym1 wi1 wi2 w wo)
      (outputs
        (add (add (dot a wi1) (mul (add u0 (mul um1 up1)) wi2)) (dot xp w))
        (mul (add ym1 ym3) (dot xp wo))
        (dot a wi1)))))
  (let L (add (add (sum (mul xs F1)) (sum (mul ys F2))) (sum (mul zs F3))))
  (let (g1 g2 gx0 gy0 gw1 gw2 gw gwo) (grad L u1 u2 x0 y0 W_in1 W_in2 W W_out))
  (output L g1 g2 gx0 gy0 gw1 gw2 gw gwo))
