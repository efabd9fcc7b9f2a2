; FractalTensor-style loop combinators; each lowers to a scan.
; Run it:  cargo run --release -- run examples/combinators.sexp --gen --dim T=8
(program combinators
  (input X (f64 T 3))
  (input w (f64 3))
  ; map zips its sequences: y_t = x_t * w + x_t   (w is captured: a closure)
  (let Y (map (fn (x x2) (add (mul x w) x2)) X X))
  ; running sums from the left and from the right
  (let L (scanl (fn (acc x) (add acc x)) (zeros (f64 3)) X))
  (let R (scanr (fn (acc x) (add acc x)) (zeros (f64 3)) X))
  ; folds return the last state: the total, and the elementwise maximum
  (let total (foldl (fn (acc x) (add acc x)) (zeros (f64 3)) X))
  (let top (reduce (fn (acc x) (maximum acc x)) (fill (f64 3) -inf) X))
  (output Y L R total top))
