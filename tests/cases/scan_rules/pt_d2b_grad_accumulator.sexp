; Adapts test_push_out's GRU gradient test (D2) to a backward loop written
; by hand: going backwards over the hidden states H and output gradients G,
; dW accumulates outer(h_t, g_t) (the accumulator scan_push_out_add targets)
; while dh_t = W dh_{t-1} (1 - h_t^2) + g_t is a true recurrence. dW
; becomes a sum outside; the dh loop stays.
; dims: T=6 N=3
; scans_after: 1
; fires: scan-to-reduction
(program pt_d2b_grad_accumulator
  (input H (f64 T N))
  (input G (f64 T N))
  (input W (f64 N N))
  (let (DW DH) (scan
    (sequences H G)
    (outputs_info (sitsot (zeros (f64 N N))) (sitsot (zeros (f64 N))))
    (non_sequences W)
    (go_backwards)
    (fn (h g dw dh w)
      (outputs
        (add dw (mul (expand_dims h 1) (expand_dims g 0)))
        (add (dot w (mul dh (sub 1.0 (mul h h)))) g)))))
  (output (index DW -1) DH))
