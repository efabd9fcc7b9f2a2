; The backward loop of an RNN as the gradient builds it: a mitmot tape
; (in taps 0 1, out tap 1) over the reversed saved states, and the weight
; gradient's outer product delta_t q_t^T stacked per step and summed after
; the loop. scan-mitmot-to-carry makes the tape a carry, so the stacked
; products are computed after the loop from the stacked deltas
; (scan-push-out-output) and their sum is one matrix product
; (sum-outer-products): the loop keeps only the recurrence and delta.
; dims: T=6 N=3
; cost_dims: T=500 N=256
; scans_after: 1
; parts_after: nitsots=1
; fires: scan-mitmot-to-carry scan-push-out-output sum-outer-products
(program eq_mitmot_carry_weight_grad
  (input W (f64 N N))
  (input Q (f64 T N))
  (input Gbar (f64 T N))
  (let tape (concat 0 Gbar (zeros (f64 1 N))))
  (let (G DW) (scan
    (sequences Q)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)) (nitsot))
    (non_sequences W)
    (go_backwards)
    (fn (q g g1 w)
      (let delta (mul g (sub 1.0 (mul q q))))
      (outputs (add g1 (dot (transpose w) delta)) (mul (expand_dims delta 1) (expand_dims q 0))))))
  (output (index G -1) (sum DW 0)))
