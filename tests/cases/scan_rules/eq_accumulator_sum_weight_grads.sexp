; scan-accumulator-sum: a PyTensor-style backward loop (its carry a mitmot
; tape, turned into a carry by scan-mitmot-to-carry) accumulates three
; weight gradients read only at their end: x_t^T g_t (X read reversed, in
; place), [h_t^T g_t | h_t^T q_t] (a concat of two products) and the bias
; sum(g_t, 0). All three leave the loop at once: the loop keeps the carry
; and stacks g and q, and each gradient is one product (or one sum) over
; all steps after it, the init added.
; scale: U=0.5 V=0.5
; scans_after: 1
; parts_after: mitmots=0 sitsots=1 nitsots=1
; fires: scan-accumulator-sum
(program eq_accumulator_sum_weight_grads
  (input X (f64 6 2 3))
  (input H (f64 6 2 4))
  (input D (f64 6 2 4))
  (input G (f64 7 2 4))
  (input U (f64 4 4))
  (input V (f64 4 3))
  (input dU0 (f64 4 7))
  (let (m dW dUV db) (scan
    (sequences (slice X none none -1) (slice H none none -1) (slice D none none -1))
    (outputs_info (mitmot (slice G none none -1) (in_taps 0 1) (out_taps 1))
                  (sitsot (zeros (f64 3 4))) (sitsot dU0) (sitsot (zeros (f64 4))))
    (non_sequences U V)
    (fn (x h d m0 m1 a b c u v)
      (let g (mul (add m0 d) (sub 1.0 (mul m0 m0))))
      (let q (tanh (dot g v)))
      (outputs (add m1 (dot g u))
               (add a (dot (transpose x 1 0) g))
               (add b (concat 1 (dot (transpose h 1 0) g) (dot (transpose h 1 0) q)))
               (add c (sum g 0))))))
  (output (index dW -1) (index dUV -1) (index db -1) (index m -1)))
