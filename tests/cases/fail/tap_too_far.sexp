; args: fmt
; Found by tests/fuzz.rs: a tap of -2^63 made the tap span overflow, and the
; optimizer built a loop of -9223372036854775803 steps (an internal error).
; Taps are bounded; the error names the tap.
(program p
  (input s0 (f64))
  (let S (scan
    (sequences ((fill (f64 3) 0.25) (taps -9223372036854775808)))
    (outputs_info (sitsot s0))
    (fn (b s) s)))
  (output S))
