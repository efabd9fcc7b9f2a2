; args: run --no-opt --gen --dim N=1000 --max-memory 4000
; sum converts its bool operand to i64 (8000 bytes) though the result is
; one number: the conversion is checked too.
(program count
  (input x (bool N))
  (output (sum x)))
