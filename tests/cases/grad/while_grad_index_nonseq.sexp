; research §7.2 W11, the regression of Theano/Theano#5439 (the gradient of
; a while loop landed on the last rows): i runs over arange(20) (an i64
; sequence), x = arange(20) + e is a non-sequence (e within +-0.005, scale
; 0.01), r_i = x[i]^2 until x[i] > 4.5 (upstream: x[i] == 5 on exact
; integers, which a perturbation would break; every x is at least 0.49 from
; 4.5). 6 of 20 steps run; dL/de = 2 x on 0-5 and 0 on 6-19 (L = sum r).
; wrt: e
; scale: e=0.01
(program while_grad_index_nonseq
  (input e (f64 20))
  (let x (add (cast f64 (arange 20)) e))
  (let R (scan
    (sequences (arange 20))
    (non_sequences x)
    (fn (i xs)
      (let v (index xs i))
      (outputs (mul v v) (until (gt v 4.5))))))
  (let L (sum R))
  (let ge (grad L e))
  (output L ge R))
