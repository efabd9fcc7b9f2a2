; A matrix that becomes singular at step 2 of a loop: the step tape
; (which runs the steps after the first) stops and the error is the
; plan's, placed at the solve in the body, in both modes.
; args: run --gen --dim T=5
(program p
  (input Y (f64 T 2))
  (let (C S) (scan (sequences Y) (outputs_info (sitsot 0.0) (nitsot))
    (fn (y c)
      (let M (reshape (concat 0 (tensor (f64 3) 1.0 2.0 2.0) (expand_dims (add 2.0 c) 0)) 2 2))
      (outputs (add c 1.0) (solve M y)))))
  (output S))
