; args: run --no-opt --gen --dim T=1000 --max-memory 10K
; A generated input of 1000 x 1000 f64 under a 10 KiB budget.
(program p
  (input x (f64 T T))
  (output (sum x)))
