; A fold whose step meets a pole on the padding (docs/lists.md
; "Batching"): log(x . w) is finite on every real row (x, w > 0) but is
; log(0) on the zero rows past a sequence's end. Batched, those rows are
; masked in the forward pass, but their zero cotangent times the infinite
; derivative 1/(x . w) is NaN in the gradient with respect to w. The
; written program never computes those rows: `run` must give its finite
; results (the batched run is discarded and the map runs per sequence).
; Lengths 3, 0, 5, 2; checked against JAX and central differences.
(program batch_pole
  (input L (list (list (f64 4))))
  (input w (f64 4))
  (input a (f64 3))
  (input h0 (f64 3))
  (let hs (map (fn (s) (foldl (fn (h x) (add (mul h a) (log (sum (mul x w))))) h0 s)) L))
  (let H (stack hs))
  (let cost (sum (mul H H)))
  (let (gw ga g0) (grad cost w a h0))
  (output cost gw ga g0))
