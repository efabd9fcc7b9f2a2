; minimum(maximum(x, lo), hi), numpy.clip's definition, is the clip op
; (one pass instead of two), with NaN in the data.
; dims: N=6
; scans_after: 0
; fires: clip-def
(program eq_clip_spelled
  (input X (f64 N))
  (let Y (where (gt X 0.4) nan X))
  (output (minimum (maximum Y -0.2) 0.3)))
