; Second order through the special functions: N = sum(dL/dx * V) for
; L = sum(C * (expm1(x) + softplus(3x) + erf(x) + erfc(2x) + gammaln(1.2 + x^2))),
; and dN/dx against finite differences of N (the gradients of the
; gradients: exp, sigmoid, the Gaussian, digamma -> trigamma).
; wrt: x
(program op_special_second_order
  (input C (f64 3 4))
  (input V (f64 3 4))
  (input x (f64 3 4))
  (let L (sum (mul C (add (add (add (expm1 x) (softplus (mul 3.0 x))) (add (erf x) (erfc (mul 2.0 x))))
                          (gammaln (add 1.2 (mul x x)))))))
  (let N (sum (mul (grad L x) V)))
  (output N (grad N x)))
