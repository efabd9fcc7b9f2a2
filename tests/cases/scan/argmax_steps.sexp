; argmax, all and any inside a loop body (their integer and bool
; results are computed by the plan; the step tape holds floats): per
; step, the index of the largest score x_t * w, whether every score is
; positive, and a running count of the steps where some score exceeds
; 0.3.
; dims: T=6 N=4
(program argmax_steps
  (input X (f64 T N))
  (input w (f64 N))
  (let (I P C) (scan (sequences X) (outputs_info (nitsot) (nitsot) (sitsot (zeros (i64)))) (non_sequences w)
    (fn (x c ww)
      (let s (mul x ww))
      (outputs (argmax s) (all (gt s 0.0)) (add c (cast i64 (any (gt s 0.3))))))))
  (output I P C))
