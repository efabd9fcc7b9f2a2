; dims: T=4 N=3
(program scan_matrix_state
  (input M0 (f64 N N))
  (input A (f64 N N))
  (let Ms (scan
    (outputs_info (sitsot M0))
    (non_sequences A)
    (n_steps T)
    (fn (m a) (tanh (add (dot m a) 0.1)))))
  (output Ms))
