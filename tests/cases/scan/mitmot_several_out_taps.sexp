; The dual of a mitsot with taps (-3 -1): a mitmot read at in taps (0 3 1)
; and written at out taps (3 1), on a tape of n_steps + 3 slots; the out
; taps are also in taps, so each write adds to what the slot held.
; dims: T=5 N=2
(program mitmot_several_out_taps
  (input G (f64 T N))
  (input a (f64 N))
  (input b (f64))
  (let tape (concat 0 G (zeros (f64 3 N))))
  (let R (scan
    (outputs_info (mitmot tape (in_taps 0 3 1) (out_taps 3 1)))
    (non_sequences a b)
    (n_steps T)
    (fn (g0 g3 g1 va vb)
      (outputs (add g3 (mul va g0)) (add g1 (mul vb (sin g0)))))))
  (output R))
