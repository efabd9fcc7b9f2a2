; Port of test_grad_duplicate_outputs (G11): the body returns (tot, tot),
; tot = s_t + y_{t-3} + ns, as a nit-sot and a mit-sot with taps (-3);
; seq 10x3, init 3x3, ns 3. Upstream: for both sum(out0) and sum(out1),
; d seq rows = 4,3,3,3,2,2,2,1,1,1 (out1), d init rows = 4,3,3, d ns = 22.
; Output 0 is sum(out1) with its gradients (finite differences); then the
; gradients of sum(out0).
; wrt: s y0 ns
(program pt_G11_grad_duplicate_outputs
  (input s (f64 10 3))
  (input y0 (f64 3 3))
  (input ns (f64 3))
  (let (o0 o1) (scan (sequences s) (outputs_info (nitsot) (mitsot y0 (taps -3))) (non_sequences ns)
    (fn (s_t ym3 n) (let tot (add (add s_t ym3) n)) (outputs tot tot))))
  (let L (sum o1))
  (let (gs gy gn) (grad L s y0 ns))
  (let (hs hy hn) (grad (sum o0) s y0 ns))
  (output L gs gy gn hs hy hn))
