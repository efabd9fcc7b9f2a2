; d/da and d/db of sum(C * mod(3a, 0.7 + b^2)): the VJP of mod is 1 for
; the dividend and -floor_div(x, y) for the divisor (floor's derivative
; taken as zero, as JAX), checked by finite differences (the data keeps
; every 3a / (0.7 + b^2) at least 0.0135 from an integer, so no step
; crosses a jump). floor_div's own gradient is zero.
; wrt: a b
(program op_mod
  (input C (f64 3 4))
  (input a (f64 3 4))
  (input b (f64 3 4))
  (let y (add 0.7 (mul b b)))
  (let L (sum (add (mul C (mod (mul 3.0 a) y)) (floor_div (mul 3.0 a) y))))
  (let (ga gb) (grad L a b))
  (output L ga gb))
