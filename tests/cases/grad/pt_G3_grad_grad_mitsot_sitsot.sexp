; Port of test_grad_grad_mitsot_sitsot (G3): a mit-sot with taps (-2 -1)
; (init a 2x3 matrix) and a sit-sot (a vector), both (m2 + m1 + s)^1.05,
; 5 steps; the second derivative of (sum of the gradients with respect to
; the inits) with respect to init0 (upstream only builds it: here finite
; differences check it).
; wrt: i0 i1
(program pt_G3_grad_grad_mitsot_sitsot
  (input i0 (f64 2 3))
  (input i1 (f64 3))
  (let a0 (add i0 1.0))
  (let a1 (add i1 1.0))
  (let (o0 o1) (scan (outputs_info (mitsot a0 (taps -2 -1)) (sitsot a1)) (n_steps 5)
    (fn (m2 m1 s) (let o (mul 0.25 (pow (add (add m2 m1) s) 1.05))) (outputs o o))))
  (let (g0 g1) (grad (add (sum o0) (sum o1)) i0 i1))
  (let f (add (sum g0) (sum g1)))
  (let (h0 h1) (grad f i0 i1))
  (output f h0 h1))
