; Ports test_push_out's sum-of-outer-products test (D1):
; S_t = S_{t-1} + a_t b_t^T from zeros, read at its end; PyTensor turns it
; into one dot, and so does eqscan: a sum over the stacked outer products
; (scan-to-reduction), which is one matrix product A^T B
; (sum-outer-products). No loop.
; scans_after: 0
; fires: scan-to-reduction sum-outer-products
(program pt_d1_sum_outer_products
  (input A (f64 5 5))
  (input B (f64 5 5))
  (let S (scan
    (sequences A B)
    (outputs_info (sitsot (zeros (f64 5 5))))
    (fn (a b s) (add s (mul (expand_dims a 1) (expand_dims b 0))))))
  (output (index S -1)))
