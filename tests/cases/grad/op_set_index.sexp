; d/dX, d/dv, d/ds of sum(C * set_index(set_index(X, tanh(v), 1), s, -1, 2)):
; the rows and elements written over get no gradient from X; v receives
; its row of C, s its element.
; wrt: X v s
(program op_set_index
  (input C (f64 3 4))
  (input X (f64 3 4))
  (input v (f64 4))
  (input s (f64))
  (let Y (set_index (set_index X (tanh v) 1) (mul s s) -1 2))
  (let L (sum (mul C (mul Y Y))))
  (let (gX gv gs) (grad L X v s))
  (output L gX gv gs))
