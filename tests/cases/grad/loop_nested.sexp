; Nested loops: the outer scan's body runs an inner scan over a row of M
; (a running product-sum), whose last value feeds the outer recurrence
; s_t = s_{t-1} * 0.5 + inner_last(M_t, s_{t-1}); gradients through both.
; wrt: M s0 w
; dims: T=4 N=3
(program loop_nested
  (input M (f64 T N))
  (input s0 (f64))
  (input w (f64))
  (let S (scan (sequences M) (outputs_info (sitsot s0)) (non_sequences w)
    (fn (row s wv)
      (let inner (scan (sequences row) (outputs_info (sitsot s)) (non_sequences wv)
        (fn (m acc ww) (tanh (add (mul acc ww) m)))))
      (add (mul s 0.5) (index inner -1)))))
  (let L (sum (mul S S)))
  (let (gM gs0 gw) (grad L M s0 w))
  (output L gM gs0 gw))
