; Port of PyTensor TestScan::test_grad_sitsot (research §7.1 G1): x_t =
; 2 x_{t-1} from v, 5 steps; g = d(sum xs)/dv is 2+4+8+16+32 = 62 per
; entry whatever v; f = sum(g), and its gradient (a second derivative
; through the loop) is 0, checked by finite differences as verify_grad does.
; wrt: v
(program pt_G1_grad_sitsot
  (input v (f64 3))
  (let xs (scan (outputs_info (sitsot v)) (n_steps 5) (fn (x) (mul 2.0 x))))
  (let g (grad (sum xs) v))
  (let f (sum g))
  (output f (grad f v) g))
