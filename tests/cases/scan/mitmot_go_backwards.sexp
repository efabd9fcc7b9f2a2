; A mitmot with go_backwards: the sequence is read from its end, the tape
; slots follow the step count (step i reads slots i, i+1 and writes slot
; i+1), as in a backward loop. Tape of T+1 slots built from an input.
; dims: T=5 N=3
(program mitmot_go_backwards
  (input X (f64 T N))
  (input G (f64 T N))
  (input w (f64 N))
  (let tape (concat 0 G (zeros (f64 1 N))))
  (let R (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 1) (out_taps 1)))
    (non_sequences w)
    (go_backwards)
    (fn (x g g_next v)
      (add g_next (mul (mul v (tanh x)) g)))))
  (output R (index R -1)))
