; The map combinator over two zipped sequences with a closure:
; y_t = sin(x_t) * z_t + c; L = sum(y^2).
; wrt: x z c
; dims: T=6
(program loop_map
  (input x (f64 T))
  (input z (f64 T))
  (input c (f64))
  (let y (map (fn (a b) (add (mul (sin a) b) c)) x z))
  (let L (sum (mul y y)))
  (let (gx gz gc) (grad L x z c))
  (output L gx gz gc))
