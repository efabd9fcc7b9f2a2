; Port of test_grad_multiple_taps_state (G14): a mit-sot with taps (-4 -1)
; whose body reads only x_{t-1}: x_t = w + x_{t-1}, 2x2 states, 10 steps,
; loss sum(xs[-1]^2); gradients with respect to the init (4 rows here,
; exactly the tap span; upstream passes 5 and the first 4 are used) and w.
; Rows 0-2 of the init are read only through the unused tap: gradient 0.
; wrt: init w
(program pt_G14_grad_multiple_taps_state
  (input init (f64 4 2 2))
  (input w (f64 2 2))
  (let xs (scan (outputs_info (mitsot init (taps -4 -1))) (non_sequences w) (n_steps 10)
    (fn (xm4 xm1 wv) (add wv xm1))))
  (let last (index xs -1))
  (let L (sum (mul last last)))
  (let (gi gw) (grad L init w))
  (output L gi gw))
