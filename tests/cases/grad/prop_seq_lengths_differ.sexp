; Found by tests/proptest_grad.rs (reduced, then the body made to read
; X): the second loop's sequences allow 3 steps (X) and T - 2 (S3, of
; length T - 1, read at tap -1), so it runs min(3, T - 2) steps, known
; only at run time; the backward loop reads the used rows and places
; their gradient back through loops (src/grad/seq_rows.rs). Was refused:
; "not written yet for a sequence longer than a step count that is not a
; constant".
; wrt: X Z h0
; dims: T=4
(program prop_seq_lengths_differ
  (input X (f64 3))
  (input Z (f64 T))
  (input h0 (f64 3))
  (let S3 (scan
    (sequences (Z (taps -1)))
    (fn (x2) 0)))
  (let S32 (scan
    (sequences (X (taps 0)) (S3 (taps -1)))
    (outputs_info (mitsot (slice h0 0 2) (taps -2 -1)))
    (fn (x13 x15 f16 f17) (add (mul f16 0.5) (tanh (add f17 x13))))))
  (let gcost_o0 S32)
  (let gcost_L (sum (tanh gcost_o0)))
  (let (gcost_g0 gcost_g1 gcost_g2) (grad gcost_L X Z h0))
  (output gcost_L gcost_g0 gcost_g1 gcost_g2))
