; Found by tests/fuzz.rs (scan_seq_taps_unordered with 1 replaced by
; -9223372036854775808, reduced by the test). sub-to-add-neg writes
; x - c as x + (neg c), and constant folding computes (neg c) in i64,
; where -(-2^63) wraps to -2^63: x + 2^63 became x - 2^63, and pow of
; the now negative base is NaN. As written, the weak literal is an f64
; (NumPy converts it first) and the base is positive.
; dims: T=6
; scans_after: 0
(program prop
  (input X (f64 T))
  (let Y (scan
    (sequences (X (taps 1 0)))
    (fn (x_p1 x_0) (pow (sub x_p1 -9223372036854775808) x_0))))
  (output Y))
