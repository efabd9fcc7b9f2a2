; Port of test_grad_multiple_outs_taps_backwards (G8): G7 without the
; nit-sot, iterating the sequences from the end (go_backwards).
; scale: W_in1=0.4 W_in2=0.4 W=0.4 W_out=0.4
; wrt: u1 u2 x0 y0 W_in1 W_in2 W W_out
(program pt_G8_grad_multiple_outs_taps_backwards
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
  (let (xs ys) (scan
    (sequences u1 (u2 (taps -1 0 1)))
    (outputs_info (sitsot x0) (mitsot y0 (taps -3 -1)))
    (non_sequences W_in1 W_in2 W W_out)
    (go_backwards)
    (fn (a um1 u0 up1 xp ym3 ym1 wi1 wi2 w wo)
      (outputs
        (add (add (dot a wi1) (mul (add u0 (mul um1 up1)) wi2)) (dot xp w))
        (mul (add ym1 ym3) (dot xp wo))))))
  (let L (add (sum (mul xs F1)) (sum (mul ys F2))))
  (let (g1 g2 gx0 gy0 gw1 gw2 gw gwo) (grad L u1 u2 x0 y0 W_in1 W_in2 W W_out))
  (output L g1 g2 gx0 gy0 gw1 gw2 gw gwo))
