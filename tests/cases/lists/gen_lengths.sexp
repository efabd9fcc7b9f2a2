; gen: L=2,0,1
; A generated list of sequences with the lengths given on the command
; line (--gen --lengths L=2,0,1): the data rule fills its values array.
(program gen_lengths
  (input L (list (list (f64 4))))
  (input W (f64 4 4))
  (output L (dot (stack (index L 0)) W) (len (index L 1)) (sum (stack (index L 2)))))
