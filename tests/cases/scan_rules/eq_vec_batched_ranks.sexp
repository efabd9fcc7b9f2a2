; Two sequence steps of different ranks in one elementwise op: x_t of shape
; (M) plus a_t of shape (N M), and a per-step scalar y_t times a_t; moved
; out, the lower-rank stack needs length-1 axes after the time axis (here
; T = N, so a plain broadcast would line up the wrong axes silently).
; dims: T=3 N=3 M=2
; scans_after: 0
; fires: scan-push-out-seq
(program eq_vec_batched_ranks
  (input X (f64 T M))
  (input A (f64 T N M))
  (input y (f64 T))
  (let (O0 O1) (scan (sequences X A y) (outputs_info (nitsot) (nitsot))
    (fn (x a yt) (outputs (add x a) (mul yt a)))))
  (output O0 O1))
