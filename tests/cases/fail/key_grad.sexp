; args: run --no-opt
; grad with respect to a key is an error
(program p
  (input x (f64 3))
  (let k (key 1))
  (let L (sum (mul x (uniform k (f64 3)))))
  (output (grad L k)))
