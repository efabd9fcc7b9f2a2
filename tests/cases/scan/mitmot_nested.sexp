; A map whose body runs a mitmot loop on its row (a tape of K+1 slots per
; row), and a mitmot loop whose body holds a fold: nesting either way.
; dims: R=3 K=4 N=2
(program mitmot_nested
  (input X (f64 R K N))
  (input c (f64 N))
  (input S (f64 K N))
  (let P (scan
    (sequences X)
    (fn (x)
      (scan
        (outputs_info (mitmot (concat 0 x (zeros (f64 1 N))) (in_taps 0 1) (out_taps 1)))
        (non_sequences c)
        (n_steps K)
        (fn (g0 g1 v) (add g1 (mul v g0)))))))
  (let Q (scan
    (sequences X)
    (outputs_info (mitmot (concat 0 S (ones (f64 1 N))) (in_taps 0 1) (out_taps 1)))
    (fn (x g0 g1)
      (add g1 (mul 0.25 (foldl (fn (acc r) (add acc (mul r g0))) g0 x))))))
  (output P Q))
