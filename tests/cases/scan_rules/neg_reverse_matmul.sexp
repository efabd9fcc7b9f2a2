; A reversal that is not of the batch axis of a product does not move:
; reversing the rows of the right operand (the contraction axis) permutes
; the terms each result element sums, not the results; and a rank-3 array
; broadcast along axis 0 (length 1) plus a reversal has no reversal to
; move (the rules ask for a matrix and an addend of rank 2 or 1).
; dims: T=4 B=3 D=5
; scans_after: 0
; not_fires: matmul-reverse add-bcast-reverse-2 add-bcast-reverse-1
(program neg_reverse_matmul
  (input x (f64 T B D))
  (input w (f64 D D))
  (input c (f64 1 B D))
  (output (matmul x (slice w none none -1))
    (add c (slice x none none -1))))
