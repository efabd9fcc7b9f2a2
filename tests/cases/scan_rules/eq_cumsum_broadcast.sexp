; A running sum whose term has fewer axes than the state (a scalar x_t
; added to a vector state) read at every step: the cumsum gets a length-1
; axis to broadcast against the init.
; dims: T=6 N=3
; scans_after: 0
; fires: scan-to-cumulative
(program eq_cumsum_broadcast
  (input x (f64 T))
  (input s0 (f64 N))
  (let S (scan (sequences x) (outputs_info (sitsot s0))
    (fn (xt s) (add s xt))))
  (output S))
