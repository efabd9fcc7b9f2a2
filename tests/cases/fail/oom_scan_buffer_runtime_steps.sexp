; args: run --no-opt --gen --max-memory 1M
; The step count is computed (no static size): the loop checks its buffer
; once the first step gives its shape.
(program p
  (input a0 (f64 3))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps (sum (fill (i64 100000) 1)))
    (fn (a) (add (mul a 0.5) 1.0))))
  (output A))
