; Ports test_trace's cannot-reduce test (F3): x_t = x + 1 and y_t = y - 1
; from 0 over 10 steps, read at xs[:5] and ys[-1]: [1..5] and -10.
; scans_after: 1
(program pt_f3_cannot_reduce
  (let (X Y) (scan (outputs_info (sitsot 0.0) (sitsot 0.0)) (n_steps 10)
    (fn (x y) (outputs (add x 1.0) (sub y 1.0)))))
  (output (slice X none 5) (index Y -1)))
