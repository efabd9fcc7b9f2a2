; A user-written MIT-MOT tape of 8 slots in a loop of T steps (T = 5
; here): the shortest tape is T + 1 slots, so 2 slots at its end no
; step touches, a number known only at run time. The gradient cuts the
; backward tape to the first T + 1 slots with a loop and writes its
; result over the cotangent after the loop (the untouched slots' cotangent
; passes straight through). N = sum((dL/dG)^2) holds the first-order
; gradient; its own gradients (second order) are checked by finite
; differences.
; wrt: G X
; dims: T=5
(program mitmot_tape_runtime_tail_T5
  (input G (f64 8 2))
  (input X (f64 T 2))
  (let R (scan (sequences X) (outputs_info (mitmot G (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1) (add g1 (mul g0 (tanh x))))))
  (let L (sum (mul R R)))
  (let gG (grad L G))
  (let N (sum (mul gG gG)))
  (let (nG nX) (grad N G X))
  (output N nG nX R))
