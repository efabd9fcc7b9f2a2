; Port of test_grad_multiple_outs_some_truncate (G9): x_t = u_t . W_in +
; x_{t-1} over u (5 x 2) with truncate_gradient = 3, whose gradient with
; respect to u has rows 0-1 exactly 0. eqscan has no truncate_gradient
; clause; the same truncation is written with stop_gradient: the first
; 5 - 3 steps run in their own scan, whose final state enters the last 3
; steps through stop_gradient, and the first steps' outputs reach the
; cost through stop_gradient too (a truncated backward loop never visits
; them): so the gradient for u's rows 0-1 and for x0 is exactly 0. (The test's random scalar term is
; dropped, as the research notes say.) PyTensor's own scan with
; truncate_gradient=3 on these inputs gives the same four outputs.
(program pt_G9_grad_multiple_outs_some_truncate
  (input u (f64 5 2))
  (input W_in (f64 2))
  (input x0 (f64))
  (let A (scan (sequences (slice u 0 2)) (outputs_info (sitsot x0)) (non_sequences W_in)
    (fn (u_t x w) (add (dot u_t w) x))))
  (let B (scan (sequences (slice u 2 none)) (outputs_info (sitsot (stop_gradient (index A -1)))) (non_sequences W_in)
    (fn (u_t x w) (add (dot u_t w) x))))
  (let X (concat 0 (stop_gradient A) B))
  (let L (sum (mul X X)))
  (output L (grad L u) (grad L W_in) (grad L x0)))
