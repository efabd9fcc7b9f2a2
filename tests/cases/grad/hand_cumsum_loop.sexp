; A hand-written backward loop: y = the running sum of x (a sit-sot scan),
; L = sum(y * c). dL/dx_t = sum_{s >= t} c_s, the running sum of c from the
; end (a go_backwards scan, its outputs reversed back); dL/dc = y.
; wrt: x c
; dims: T=7
(program hand_cumsum_loop
  (input x (f64 T))
  (input c (f64 T))
  (let y (scan (sequences x) (outputs_info (sitsot (fill (f64) 0.0)))
    (fn (x_t acc) (add acc x_t))))
  (let r (scan (sequences c) (outputs_info (sitsot (fill (f64) 0.0))) (go_backwards)
    (fn (c_t acc) (add acc c_t))))
  (output (sum (mul y c)) (slice r none none -1) y))
