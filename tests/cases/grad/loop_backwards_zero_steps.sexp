; go_backwards with n_steps 0 (a random program found it): the loop reads
; none of x's rows, so all of them get only the loss's own term. The used
; rows of a backwards loop are x[-n:], and x[-0:] is every row: the
; gradient added a 0-row cotangent into all 7 rows and failed.
; wrt: x h0
; dims: T=7
(program loop_backwards_zero_steps
  (input x (f64 T 2))
  (input h0 (f64 2))
  (let H (scan (sequences x) (outputs_info (sitsot h0)) (n_steps 0) (go_backwards)
    (fn (x_t h) (mul (tanh h) (add x_t 1.0)))))
  (let L (add (sum H) (sum (mul x x))))
  (let (gx gh0) (grad L x h0))
  (output L gx gh0))
