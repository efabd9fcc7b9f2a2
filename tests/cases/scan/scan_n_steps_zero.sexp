; zero steps: 0 rows of the step's shape.
; dims: N=3
(program scan_n_steps_zero
  (input a0 (f64 N))
  (let A (scan
    (outputs_info (sitsot a0))
    (n_steps 0)
    (fn (a) (add a 1.0))))
  (output A))
