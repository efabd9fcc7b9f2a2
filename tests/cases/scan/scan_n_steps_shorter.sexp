; n_steps smaller than the sequence: only X[0..n_steps-1] is read.
; dims: T=6 N=3
(program scan_n_steps_shorter
  (input X (f64 T N))
  (input a0 (f64 N))
  (let (A Y) (scan
    (sequences X)
    (outputs_info (sitsot a0) (nitsot))
    (n_steps 4)
    (fn (x a) (outputs (add a x) (mul x a)))))
  (output A Y))
