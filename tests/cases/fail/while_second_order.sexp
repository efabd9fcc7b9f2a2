; second order through a while loop is not supported yet: the gradient
; of the gradient (line 12, the outer grad) is refused with one located
; line, not a wrong number (tests/cases/grad/while_second_order_gradnorm
; is the pending case).
; args: run --no-opt --gen --dim T=6
(program p
  (input h0 (f64 2))
  (input X (f64 T 2))
  (let H (scan (sequences X) (outputs_info (sitsot h0))
    (fn (x h) (let h1 (add (tanh h) x)) (outputs h1 (until (gt (sum h1) 2.0))))))
  (let g (grad (sum H) h0))
  (output (grad (sum (mul g g)) h0)))
