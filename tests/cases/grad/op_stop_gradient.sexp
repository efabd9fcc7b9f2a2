; stop_gradient cuts the flow: L = sum(x * stop_gradient(x^2)) has
; dL/dx = x^2 (finite differences would give 3 x^2), and a cost that
; reaches y only through stop_gradient has a zero gradient for y.
; Values are PyTensor's (disconnected_grad).
(program op_stop_gradient
  (input x (f64 5))
  (input y (f64 5))
  (let L (add (sum (mul x (stop_gradient (mul x x)))) (sum (stop_gradient (exp y)))))
  (let (gx gy) (grad L x y))
  (output L gx gy))
