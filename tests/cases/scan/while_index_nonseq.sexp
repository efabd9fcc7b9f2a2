; The forward half of research §7.2 W11 (Theano/Theano#5439): i runs over
; arange(20) (an i64 sequence), x = arange(20) as f64 is a non-sequence,
; r_i = x[i]^2 until x[i] == 5 (an exact equality of a value read from a
; non-sequence). 20 steps at most; 6 run: r = [0 1 4 9 16 25].
(program while_index_nonseq
  (let x (cast f64 (arange 20)))
  (let R (scan
    (sequences (arange 20))
    (non_sequences x)
    (fn (i xs)
      (let v (index xs i))
      (outputs (mul v v) (until (eq v 5.0))))))
  (output R))
