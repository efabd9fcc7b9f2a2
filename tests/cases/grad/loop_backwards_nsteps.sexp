; go_backwards with an n_steps shorter than the sequence: the loop reads
; x from the end, 4 of its 7 rows; the unread rows get zero gradient.
; wrt: x h0
; dims: T=7
(program loop_backwards_nsteps
  (input x (f64 T 2))
  (input h0 (f64 2))
  (let H (scan (sequences x) (outputs_info (sitsot h0)) (n_steps 4) (go_backwards)
    (fn (x_t h) (mul (tanh h) (add x_t 1.0)))))
  (let L (sum (mul H (index x 0))))
  (let (gx gh0) (grad L x h0))
  (output L gx gh0))
