; args: run --no-opt --input X=tests/fixtures/npy/huge_header.npy
; The header claims 10^12 elements over 8 bytes: rejected before anything
; is allocated.
(program p
  (input X (f64 T))
  (output (sum X)))
