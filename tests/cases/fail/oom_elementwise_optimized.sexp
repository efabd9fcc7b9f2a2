; args: run --gen --dim N=2000 --max-memory 1M
; As oom_elementwise, optimized: the compiled plan checks the budget too.
(program outer
  (input x (f64 N))
  (input y (f64 N))
  (output (sum (mul (expand_dims x 1) (expand_dims y 0)))))
