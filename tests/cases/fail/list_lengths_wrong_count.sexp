; --lengths for a depth-2 list: the outermost length 2 needs 2 inner
; lengths, 3 are given; an error naming the input (line 5).
; args: run --gen --lengths L=2/1,0,1
(program p
  (input L (list (list (f64 2))))
  (output (len L)))
