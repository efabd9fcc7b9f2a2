; args: run --no-opt --gen --dim N=2000 --max-memory 1M
; An outer product of 2000 x 2000 f64 (32 MB) under a 1 MiB budget.
(program outer
  (input x (f64 N))
  (input y (f64 N))
  (let o (mul (expand_dims x 1) (expand_dims y 0)))
  (output (sum o)))
