; A running maximum read at every step has no whole-array op (no running
; max): scan-to-cumulative must not fire; the loop stays.
; dims: T=6 N=3
; scans_after: 1
; not_fires: scan-to-cumulative scan-to-reduction
(program neg_cumulative_max
  (input X (f64 T N))
  (input s0 (f64 N))
  (let S (scan (sequences X) (outputs_info (sitsot s0))
    (fn (x s) (maximum s x))))
  (output S))
