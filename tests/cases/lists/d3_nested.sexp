; Depth 3 of i64 pairs, lengths 2/1,2/3,0,1: an empty list two levels
; down, flatten once and twice, the last element by a negative index.
(program d3_nested
  (input L (list (list (list (i64 2)))))
  (let f1 (flatten L))
  (let f2 (flatten f1))
  (output (index (index L 1) 0) f1 f2 (stack f2) (len f1) (index L -1)
    (sum (stack (index (index L 0) 0)) 0)))
