; Port of test_second_derivative_disconnected_cost_with_mit_mot (G18):
; taps (-2 -1), body s (x_{t-2} 0 + x_{t-1})^2 (z / 2), 2 steps, L =
; xs[-1]; g = sum dL/dx0; then the gradient of g (second order through a
; MIT-MOT) with respect to x0, seq and z. Inputs: the data rule's plus 1
; (upstream: ones, z = 2, giving 4 and 12).
; wrt: x0 seq z
(program pt_G18_second_derivative_disconnected_cost_with_mit_mot
  (input seq (f64 2))
  (input x0 (f64 2))
  (input z (f64))
  (let s1 (add seq 1.0))
  (let a0 (add x0 1.0))
  (let z1 (add z 1.0))
  (let xs (scan (sequences s1) (outputs_info (mitsot a0 (taps -2 -1))) (non_sequences z1)
    (fn (s xm2 xm1 zz) (mul (mul s (pow (add (mul xm2 0.0) xm1) 2.0)) (div zz 2.0)))))
  (let L (index xs -1))
  (let g (sum (grad L x0)))
  (let (hx hs hz) (grad g x0 seq z))
  (output g hx hs hz L))
