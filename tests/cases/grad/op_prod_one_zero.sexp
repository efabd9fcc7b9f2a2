; prod with exactly one zero (x[0] = 0 by the data rule, input 0): the zero's
; slot gets the product of the others, every other slot 0 (no NaN from prod /
; x).
; wrt: x
(program op_prod_one_zero
  (input x (f64 5))
  (let L (prod x))
  (output L (grad L x)))
