; An f64 state driven by an i32 sequence (the step tape holds f64 only:
; the i32 operand must be read as i32, not as f64 bits), with an i32
; state beside it that wraps: g_t = g_{t-1} * 3 + k_t[0].
; dims: T=7 N=3
; scale: K=4e8
(program i32_seq_float_state
  (input K (i32 T N))
  (input X (f64 T N))
  (input h0 (f64 N))
  (let (H G) (scan (sequences K X) (outputs_info (sitsot h0) (sitsot (fill (i32) 1)))
    (fn (k x h g)
      (outputs (tanh (add (mul h 0.5) (mul x (mul (cast f64 k) 1e-9))))
               (add (mul g 3) (index k 0))))))
  (output H G (sum H 0)))
