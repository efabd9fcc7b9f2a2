; scan-store-prev-products must not fire on a loop going backwards: its
; step t reads h_{t-1} from the step before in its own order, so the
; rows of (slice (concat 0 (expand_dims h0 0) H) none -1 1) are not the
; previous values it read. The product after the loop stays as written.
; not_fires: scan-store-prev-products
; scans_after: 1
(program neg_store_prev_products_backwards
  (input X (f64 6 4 3))
  (input W (f64 3 5))
  (input U (f64 5 5))
  (input h0 (f64 4 5))
  (let H (scan
    (sequences X)
    (outputs_info (sitsot h0))
    (non_sequences W U)
    (go_backwards)
    (fn (x h w u)
      (tanh (add (dot x w) (dot h u))))))
  (let Hprev (slice (concat 0 (expand_dims h0 0) H) none -1 1))
  (let P (matmul Hprev U))
  (output (sum (mul P P)) (sum H)))
