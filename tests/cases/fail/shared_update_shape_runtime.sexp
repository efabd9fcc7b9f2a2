; args: run --no-opt --gen --dim N=3 --dim M=4
(program p
  (input X (f64 N))
  (shared s (f64 M))
  (update s (mul X 2.0))
  (output s))
