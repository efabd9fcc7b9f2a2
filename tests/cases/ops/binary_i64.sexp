(program binary_i64
  (input K (i64 3 4))
  (input J (i64 3 4))
  (output (add K J) (sub K 3) (mul K J) (maximum K J) (minimum K -1)))
