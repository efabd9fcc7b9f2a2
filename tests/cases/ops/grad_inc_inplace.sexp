(program grad_inc_inplace
  (input A (f64 4 3))
  (input g (f64 3))
  (let x (exp A))
  (let dead (inc_index (mul A 2.0) g 1))
  (let kept (inc_slice x g none none -2))
  (let twice (inc_index (inc_slice (sin A) g 1 3) g 0))
  (output dead (add kept x) (sum x 0) twice (inc_index x (index x 0) 3)))
