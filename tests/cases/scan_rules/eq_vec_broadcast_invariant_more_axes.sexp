; A step with fewer axes than a loop-invariant operand: the stacked
; operand gets length-1 axes after the time axis (x_t scalar + W, and
; x_t of shape (M) + W of shape (N M)).
; dims: T=4 N=3 M=2
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_broadcast_invariant_more_axes
  (input x (f64 T))
  (input Y (f64 T M))
  (input W (f64 N M))
  (let (A B C) (scan
    (sequences x Y)
    (outputs_info (nitsot) (nitsot) (nitsot))
    (non_sequences W)
    (fn (xt y w) (outputs (add xt w) (mul y w) (sub w (mul xt y))))))
  (output A B C))
