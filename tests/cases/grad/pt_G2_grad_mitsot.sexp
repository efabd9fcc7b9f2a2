; Port of test_grad_mitsot (G2): a mit-sot with taps (-2) and a sit-sot,
; both the value o = (m2 + s)^1.02, 3 steps; f = sum d(sum out0)/d init0 +
; sum d(sum out1)/d init1, and verify_grad of f (second order through the
; loop). Inits are the data rule's values plus 1 (upstream: U[0, 1)).
; wrt: i0 i1
(program pt_G2_grad_mitsot
  (input i0 (f64 2 3))
  (input i1 (f64 3))
  (let a0 (add i0 1.0))
  (let a1 (add i1 1.0))
  (let (o0 o1) (scan (outputs_info (mitsot a0 (taps -2)) (sitsot a1)) (n_steps 3)
    (fn (m2 s) (let o (pow (add m2 s) 1.02)) (outputs o o))))
  (let f (add (sum (grad (sum o0) i0)) (sum (grad (sum o1) i1))))
  (let (h0 h1) (grad f i0 i1))
  (output f h0 h1))
