; scan-read-trace with a forward loop that has a mapped output besides
; its state (O = h ⊙ x, the loss sum(O)) and a sigmoid step: the backward
; loop reads H[t] for sigmoid(W h_prev + x_t) (sigmoid' = h (1 - h)).
; Outputs as written.
; dims: T=6 N=3
; scale: W=0.25
; fires: scan-read-trace
; scans_after: 2
; `grad L W h0` of the forward loop below, expanded (`eqscan expand`).
(program eq_read_trace_mapped_output
  (input W (f64 N N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (let (H O) (scan
    (sequences X)
    (outputs_info (sitsot h0) (nitsot))
    (non_sequences W)
    (fn (x_t h_prev w)
      (let h (sigmoid (add (dot w h_prev) x_t)))
      (outputs h (mul h x_t)))))
  (let L (sum O))
  (let (_v12 _v13) (scan
    (sequences X ((concat 0 (expand_dims h0 0) H) (taps -1)) (where true (fill (f64) 1.0) O))
    (outputs_info (mitmot (concat 0 (zeros (f64 T N)) (zeros (f64 1 N))) (in_taps 0 1) (out_taps 1)) (nitsot))
    (non_sequences W)
    (go_backwards)
    (fn (x_t h_prev _v4 _v5 _v6 w)
      (let h (sigmoid (add (dot w h_prev) x_t)))
      (let _v7 (mul (add (mul _v4 x_t) _v5) (mul h (sub 1.0 h))))
      (outputs (add _v6 (dot (transpose w) _v7)) (mul (expand_dims _v7 1) (expand_dims h_prev 0))))))
  (let dh0 (index _v12 -1))
  (let dW (sum _v13 0))
  (output L dW dh0))
