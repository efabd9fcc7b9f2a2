; A running product nested in a map, over the map's step (it reads no
; state of the outer loop): it becomes a cumprod of the row, which then
; moves out of the map as a cumprod along axis 1: no loop.
; dims: T=4 N=3
; scans_after: 0
; fires: scan-to-cumulative scan-push-out-seq
(program eq_nested_cumprod_in_map
  (input X (f64 T N))
  (let O (scan (sequences X)
    (fn (x)
      (let R (scan (sequences x) (outputs_info (sitsot 1.0)) (fn (e r) (mul r (add e 1.0)))))
      (mul R 2.0))))
  (output O))
