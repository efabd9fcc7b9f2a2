; The reduce combinator (associative: a product here), from init a.
; wrt: x a
; dims: T=6
(program loop_reduce
  (input x (f64 T))
  (input a (f64))
  (let r (reduce (fn (acc v) (mul acc (add v 1.0))) (add a 1.0) x))
  (let (gx ga) (grad r x a))
  (output r gx ga))
