; the inner fn reads w (a program input) and h (a parameter of the outer fn)
; without listing them; the inner state starts from h.
; dims: T=4 M=3 N=2
(program scan_nested_closure
  (input X (f64 T M N))
  (input h0 (f64 N))
  (input w (f64 N))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (fn (x h)
      (let inner (scan
        (sequences x)
        (outputs_info (sitsot h))
        (fn (r acc) (tanh (add (mul acc w) (mul r h))))))
      (index inner -1))))
  (output H))
