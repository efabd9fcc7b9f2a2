; scan-store-prev-products under grad: an RNN's loss reads h_{t-1}·U over
; all steps after the loop (P), which the optimized program takes from the
; forward loop's stored products; the gradients with respect to W and U
; go back through the loop and through P. Checked by finite differences
; as written and optimized.
; wrt: W U
; scale: W=0.5 U=0.5
(program rnn_stored_prev_products
  (input X (f64 6 4 3))
  (input W (f64 3 5))
  (input U (f64 5 5))
  (input h0 (f64 4 5))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U)
    (fn (x h w u)
      (tanh (add (dot x w) (dot h u))))))
  (let Hprev (slice (concat 0 (expand_dims h0 0) H) none -1 1))
  (let P (matmul Hprev U))
  (let L (add (sum (mul P P)) (sum H)))
  (output L (grad L W) (grad L U)))
