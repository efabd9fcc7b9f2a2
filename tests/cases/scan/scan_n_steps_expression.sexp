; n_steps is an expression over a symbolic size (T, bound by X's shape);
; scalar state.
; dims: T=6
(program scan_n_steps_expression
  (input X (f64 T 2))
  (input s0 (f64))
  (let S (scan
    (outputs_info (sitsot s0))
    (n_steps (sub T 1))
    (fn (s) (sub (mul s 1.5) 0.25))))
  (output S (sum X)))
