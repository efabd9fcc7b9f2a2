; issue 11 (T = 0): a loop of no steps whose body cannot run with these
; sizes (a step of 3 against w of 2). With the sizes written as numbers
; the parser rejects it; bound at run time, the check does too, whether
; the optimizer hoists the body out of the loop or not.
; args: run --gen --dim T=0 --dim D=3 --dim M=2
(program p
  (input X (f64 T D))
  (input w (f64 M))
  (let Y (scan
    (sequences X)
    (fn (x) (tanh (add x w)))))
  (output Y))
