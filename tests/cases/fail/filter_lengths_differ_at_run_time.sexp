; two filters keep different numbers of rows (6 and 5 of 6 on the data
; rule's inputs): adding them is a run-time error at the add (line 7),
; optimized or not.
; args: run --gen --dim T=6
(program p
  (input v (f64 T))
  (output (add (filter (fn (e) (gt e -0.1)) v)
               (filter (fn (e) (gt e 0.1)) v))))
