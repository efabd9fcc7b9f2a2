; outputs_info in the order nitsot, sitsot, mitsot; parameters: the sequence,
; the sitsot's tap, the mitsot's taps, then the non-sequence.
; dims: T=5 N=3
(program scan_mixed_outputs
  (input X (f64 T N))
  (input a0 (f64 N))
  (input I (f64 2 N))
  (input w (f64 N))
  (let (Y A M) (scan
    (sequences X)
    (outputs_info (nitsot) (sitsot a0) (mitsot I (taps -2 -1)))
    (non_sequences w)
    (fn (x a m2 m1 ww)
      (outputs
        (mul x ww)
        (add a x)
        (add (mul 0.5 m1) (mul 0.25 (sub m2 a)))))))
  (output Y A M))
