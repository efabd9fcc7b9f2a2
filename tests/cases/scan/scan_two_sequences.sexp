; two sequences of different lengths, one with taps: the shortest decides.
; dims: T=6 U=9 N=3
(program scan_two_sequences
  (input X (f64 T N))
  (input Y (f64 U N))
  (let Z (scan
    (sequences (X (taps -1 0)) Y)
    (fn (x_m1 x_0 y) (add (mul x_m1 y) x_0))))
  (output Z))
