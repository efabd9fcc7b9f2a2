; scan-store-prev-products: after an RNN's loop, h_{t-1}·U is computed
; again over all steps (the product a gradient's backward loop leaves
; after the loops once scan-push-out-seq has moved it out): the loop's
; body computes it at every step already, so the loop is built again with
; it as a new mapped output and the product over all steps reads those
; rows. Outputs as written.
; fires: scan-store-prev-products
; scans_after: 1
; parts_after: nitsots=1
(program eq_store_prev_products
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
  (output (sum (mul P P)) (sum H)))
