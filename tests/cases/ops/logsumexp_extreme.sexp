; The stable, max-shifted logsumexp at magnitudes beyond exp's range
; (issue 11, point 1): exp-add and sum-scale-right used to rewrite
; m + log(sum(exp(x - m))) into m + log(exp(-m) * sum(exp(x))), which is
; inf * 0 = NaN once |x| > 709. x = -800 - linspace(0, 3, 10) is the
; issue's repro; X (scaled to [-1000, 1000], mixed signs) makes the same
; over an input, over all elements and row-wise (keepdims and axis 0).
; scale: X=2000.0
(program logsumexp_extreme
  (input X (f64 4 5))
  (let x (sub -800.0 (mul (arange 10) 0.3333333333333333)))
  (let m (max x))
  (let mX (max X))
  (let mrow (expand_dims (max X 1) 1))
  (let mcol (max X 0))
  (output
    (add m (log (sum (exp (sub x m)))))
    (add mX (log (sum (exp (sub X mX)))))
    (add (max X 1) (log (sum (exp (sub X mrow)) 1)))
    (add mcol (log (sum (exp (sub X mcol)) 0)))))
