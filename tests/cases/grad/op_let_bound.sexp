; The gradient with respect to a let-bound value (as pytensor.grad of an
; intermediate variable): y = tanh(x), L = sum(C y^2), dL/dy = 2 C y, and
; dL/dx through it. Values are PyTensor's.
(program op_let_bound
  (input C (f64 2 3))
  (input x (f64 2 3))
  (let y (tanh x))
  (let L (sum (mul C (mul y y))))
  (let (gy gx) (grad L y x))
  (output L gy gx))
