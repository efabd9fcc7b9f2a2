; args: run --no-opt --gen --dim N=9223372036854775807 --max-memory 16G
; The largest size --dim accepts: generating the input is refused (the
; budget is far smaller than 2^63 x 8 bytes; without --max-memory it is the
; machine's memory, which the snapshot cannot name).
(program p
  (input x (f64 N))
  (output (sum x)))
