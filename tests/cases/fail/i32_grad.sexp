; Only float values have gradients; an i32 input has none.
; args: run --no-opt
(program p
  (input K (i32 3))
  (input X (f64 3))
  (let L (sum (mul X (cast f64 K))))
  (output (grad L K)))
