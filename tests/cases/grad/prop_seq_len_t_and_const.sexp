; Found by tests/proptest_grad.rs (reduced; the body made to read both): sequences of lengths T (X)
; and 4 read at tap -1 (h0: 3 steps), so the loop runs min(T, 3) steps,
; known only at run time; h0's first row and X's rows past the last step
; get zero gradient. Was refused (see prop_seq_lengths_differ).
; wrt: X h0 g0
; dims: T=8
(program prop_seq_len_t_and_const
  (input X (f64 T))
  (input h0 (f64 4))
  (input g0 (f64))
  (let S9 (scan
    (sequences X (h0 (taps -1)))
    (outputs_info (sitsot g0))
    (fn (x1 x2 s6) (add s6 (sin (mul x1 x2))))))
  (let gcost_o0 S9)
  (let gcost_L (sum (tanh gcost_o0)))
  (let (gcost_g0 gcost_g1 gcost_g2) (grad gcost_L X h0 g0))
  (output gcost_L gcost_g0 gcost_g1 gcost_g2))
