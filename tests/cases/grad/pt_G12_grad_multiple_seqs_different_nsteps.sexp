; Port of test_grad_multiple_seqs_different_nsteps (G12): c_t x^{p_t}
; mapped over c = [1, 2, -3, 4] and p = arange(1000) (the loop runs 4
; steps, the shorter sequence's length), x = 2 a non-sequence (u is input
; 0, exactly 0): d(sum)/dx = sum c_t p_t x^(p_t - 1) = 0 + 2 - 12 + 48 = 38,
; upstream's value.
; wrt: u
(program pt_G12_grad_multiple_seqs_different_nsteps
  (input u (f64))
  (let x (add u 2.0))
  (let c (tensor (f64 4) 1.0 2.0 -3.0 4.0))
  (let y (scan (sequences c (arange 1000)) (non_sequences x) (fn (c_t p_t xv) (mul c_t (pow xv p_t)))))
  (let L (sum y))
  (output L (grad L u)))
