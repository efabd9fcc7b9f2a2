; argmax of a matrix step without an axis is an index into the flattened
; step: pushed out of the loop it cannot be argmax over one axis then
; another (the vectorizer refuses that for argmax and argmin; max, sum and
; logsumexp of all axes are the reductions of one axis after another).
; dims: T=5
(program argmax_matrix_step
  (input X (f64 T 2 3))
  (let (I J L) (scan (sequences X)
    (fn (x) (outputs (argmax x) (argmin x) (logsumexp x)))))
  (output I J L))
